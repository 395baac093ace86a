#!/usr/bin/env python3
"""Self-test of check_citations.py: runs it on small trees made here, with good and bad
citations, and checks its exit codes and messages. Python 3 standard library only."""

import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_citations.py")
# The texts below spell the cited folder "@docs@", the outside folder "@shared@" and the shared
# document names "@DOMAIN@" / "@ARCH@", so that this file does not cite anything itself (the
# repository's own docs/citations test scans it); write() puts the real spellings in.
SHARED_NAME = "DOMAIN" + ".md"
SPELLINGS = {"@docs@": "docs", "@shared@": "shared", "@DOMAIN@": SHARED_NAME, "@ARCH@": "ARCHITECTURE" + ".md"}


def real(text):
    for k, v in SPELLINGS.items():
        text = text.replace(k, v)
    return text

DOC = """# Thresholds

## Link flaps

## PCIe: width `and` speed

```sh
# not a heading
```

## Link flaps

See [the flaps](#link-flaps) and [a missing one](other.md#gone).
"""

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def write(root, rel, text):
    path = os.path.join(root, real(rel))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(real(text))


def run(root, env=None):
    p = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True,
                       env=env if env is not None else os.environ)
    return p.returncode, p.stdout, p.stderr


def only_failure(text, want_line, what):
    """A tree whose one source file is `text` (docs/thresholds.md exists) fails with exactly
    one line starting with `want_line`, whatever the environment says (the strictness switch this
    checker once had, FABDIAG_CITATIONS_STRICT, is gone: setting it to 0 must change nothing)."""
    with tempfile.TemporaryDirectory() as root:
        write(root, "@docs@/thresholds.md", DOC.replace(" and [a missing one](other.md#gone)", ""))
        write(root, "rules/b.cpp", text)
        for env in (None, dict(os.environ, FABDIAG_CITATIONS_STRICT="0")):
            rc, out, err = run(root, env)
            expect(rc == 1, "%s: exit 1, got %d: %s%s" % (what, rc, out, err))
            lines = out.splitlines()
            expect(len(lines) == 1 and lines[0].startswith(real(want_line)),
                   "%s: expected one line starting %r, got:\n%s" % (what, real(want_line), out))
            expect("1 bad citation(s)" in err, "%s: summary on stderr, got %r" % (what, err))


with tempfile.TemporaryDirectory() as good:
    write(good, "@docs@/thresholds.md", DOC.replace(" and [a missing one](other.md#gone)", ""))
    write(good, "rules/a.cpp",
          "// @docs@/thresholds.md#link-flaps, @docs@/thresholds.md#link-flaps-1,\n"
          "// @docs@/thresholds.md#pcie-width-and-speed and @docs@/thresholds.md\n")
    write(good, "tests/fixtures/x/readme.txt", "@docs@/nowhere.md @DOMAIN@\n")
    write(good, "tests/golden/x.out", "@docs@/nowhere.md#x\n")
    rc, out, err = run(good)
    expect(rc == 0, "good tree: exit 0, got %d: %s%s" % (rc, out, err))
    expect("files scanned" in out, "good tree: summary line, got %r" % out)

with tempfile.TemporaryDirectory() as bad:
    write(bad, "@docs@/thresholds.md", DOC)
    write(bad, "rules/a.cpp",
          "// ok: @docs@/thresholds.md#link-flaps\n"
          "// bad anchor: @docs@/thresholds.md#link-flap\n"
          "// bad file: @docs@/Thresholds.md\n"
          "// bare: @DOMAIN@ section 1\n"
          "// outside: ../@shared@/@docs@/x.md\n"
          "// heading in a code block: @docs@/thresholds.md#not-a-heading\n")
    write(bad, "README.md", "Targets are in @ARCH@; see @docs@/@ARCH@ too.\n")
    rc, out, err = run(bad)
    expect(rc == 1, "bad tree: exit 1, got %d" % rc)
    lines = out.splitlines()
    want = [
        "rules/a.cpp:2: @docs@/thresholds.md#link-flap: no heading with anchor #link-flap in @docs@/thresholds.md",
        "rules/a.cpp:3: @docs@/Thresholds.md: no such file in the repository",
        "rules/a.cpp:4: @DOMAIN@: cites a design document outside the repository",
        "rules/a.cpp:5: ../@shared@/@docs@/x.md: a path outside the repository",
        "rules/a.cpp:6: @docs@/thresholds.md#not-a-heading: no heading with anchor #not-a-heading",
        "README.md:1: @ARCH@: cite it as @docs@/@ARCH@",
        "README.md:1: @docs@/@ARCH@: no such file in the repository",
        "@docs@/thresholds.md:13: other.md#gone: no such file in the repository",
    ]
    for w in map(real, want):
        expect(any(line.startswith(w) for line in lines), "bad tree: expected a line starting %r in:\n%s" % (w, out))
    expect(not any(":1: " in line and "rules/a.cpp" in line for line in lines),
           "bad tree: the good citation on line 1 was reported:\n" + out)
    expect(len(lines) == len(want), "bad tree: %d lines, expected %d:\n%s" % (len(lines), len(want), out))
    expect("8 bad citation(s)" in err, "bad tree: summary on stderr, got %r" % err)

# By default, with no switch: a citation of a design document by its outside name fails, and so
# does a docs/ anchor that is no heading.
only_failure("// fine: @docs@/thresholds.md#link-flaps\n// see @DOMAIN@ for the widths\n",
             "rules/b.cpp:2: @DOMAIN@: cites a design document outside the repository",
             "outside name by default")
only_failure("// widths: ../../@shared@/@docs@/notes.md\n",
             "rules/b.cpp:1: ../../@shared@/@docs@/notes.md: a path outside the repository",
             "outside path by default")
only_failure("int x;\n// see @docs@/thresholds.md#missing-anchor\n",
             "rules/b.cpp:2: @docs@/thresholds.md#missing-anchor: no heading with anchor #missing-anchor",
             "missing anchor")

with tempfile.TemporaryDirectory() as empty:
    rc, out, err = run(os.path.join(empty, "missing"))
    expect(rc == 2, "missing root: exit 2, got %d" % rc)

for f in failures:
    print("FAIL: " + f)
print("check_citations selftest: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
