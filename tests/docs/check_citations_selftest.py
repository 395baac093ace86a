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


def run(root):
    p = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True,
                       env=dict(os.environ, FABDIAG_CITATIONS_STRICT="1"))
    return p.returncode, p.stdout, p.stderr


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

with tempfile.TemporaryDirectory() as empty:
    rc, out, err = run(os.path.join(empty, "missing"))
    expect(rc == 2, "missing root: exit 2, got %d" % rc)

for f in failures:
    print("FAIL: " + f)
print("check_citations selftest: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
