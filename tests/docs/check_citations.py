#!/usr/bin/env python3
"""Checks that every document the tree cites exists, with the section it names.

Usage: check_citations.py [ROOT]   (ROOT defaults to the repository this script lives in)

Scans every file of ROOT that git knows (tracked, or untracked and not ignored; every file when
ROOT is not a git work tree), except tests/fixtures/ and tests/golden/*.out, for:

  - citations "docs/<name>.md" and "docs/<name>.md#<anchor>": the file must exist (exact case)
    and the anchor must be the GitHub slug of one of its headings;
  - in Markdown files, relative links "](<name>.md#<anchor>)" and "](#<anchor>)", resolved
    against the file's folder, with the same test;
  - citations of the team's design documents outside the repository: the bare upper-case names
    of the DOMAIN, LOCALIZATION, EMULATION and STYLE documents, the ARCHITECTURE document without
    the docs/ prefix (files under docs/ may link their sibling), and any path into the team's
    shared documents folder (outside the repository).

Every one of these is a bad citation, with no switch to tolerate any: a citation of a design
document by its outside name fails like a missing file or section does. Prints
"FILE:LINE: CITATION: REASON" for each bad citation (stdout) and a count (stderr), and exits 1 if
there is one, else 0; 2 for a bad argument. Python 3 standard library only.
"""

import os
import re
import subprocess
import sys

SKIP_PREFIXES = ("tests/fixtures/",)
SKIP_PATTERNS = (re.compile(r"^tests/golden/.*\.out$"),)

DOC_CITATION = re.compile(r"(?<![\w.-])docs/([\w.-]+?\.md)(?:#([\w-]+))?")
MD_LINK = re.compile(r"\]\((?!https?:|mailto:)([\w./-]*?\.md)?(?:#([\w-]+))?\)")
# The names are assembled so that this file does not cite them itself.
_SHARED = "|".join(("DOMAIN", "LOCALIZATION", "EMULATION", "STYLE"))
SHARED_BARE = re.compile(r"(?<![\w.-])(?:" + _SHARED + r")\.md\b")
ARCH_BARE = re.compile(r"(?<![\w.-])(?<!docs/)ARCHITECTURE\.md\b")
SHARED_PATH = re.compile(r"(?:\.\./)*\bshared" + "/" + r"docs\b[\w./-]*")

FENCE = re.compile(r"^\s*(```|~~~)")
ATX_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
MD_INLINE_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def github_slug(text):
    """The anchor GitHub gives a heading: rendered text, lower case, punctuation dropped
    (letters, digits, '_', '-' and spaces kept), each space a '-'."""
    text = MD_INLINE_LINK.sub(r"\1", text)
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path, cache):
    """Every anchor of a Markdown file: heading slugs (duplicates get -1, -2, ... as on GitHub)
    and explicit <a name/id> anchors. Headings inside fenced code blocks do not count."""
    if path in cache:
        return cache[path]
    found, counts, in_fence = set(), {}, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for a in HTML_ANCHOR.findall(line):
                found.add(a)
            m = ATX_HEADING.match(line)
            if not m:
                continue
            slug = github_slug(m.group(2))
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            found.add(slug if n == 0 else "%s-%d" % (slug, n))
    cache[path] = found
    return found


def exists_exact(root, rel):
    """True when ROOT/rel exists with exactly this spelling (also on case-insensitive disks)."""
    here = root
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            here = os.path.dirname(here)
            continue
        try:
            if part not in os.listdir(here):
                return False
        except OSError:
            return False
        here = os.path.join(here, part)
    return os.path.isfile(here)


def listed_files(root):
    """Files to scan, relative to root, '/'-separated."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout
        if subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], check=True,
                          capture_output=True, text=True).stdout.strip() != os.path.realpath(root):
            raise OSError("not the top of a work tree")
        names = sorted(set(n for n in out.decode("utf-8", "replace").split("\0") if n))
    except (OSError, subprocess.CalledProcessError):
        names = []
        for d, subdirs, files in os.walk(root):
            subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
            for name in sorted(files):
                names.append(os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/"))
    keep = []
    for n in names:
        if n.startswith(SKIP_PREFIXES) or any(p.match(n) for p in SKIP_PATTERNS):
            continue
        full = os.path.join(root, n)
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        keep.append(n)
    return keep


def check_target(root, doc_rel, anchor, cache):
    """None when docs file and anchor exist, else the reason."""
    if not exists_exact(root, doc_rel):
        return "no such file in the repository"
    if anchor and anchor not in anchors_of(os.path.join(root, doc_rel), cache):
        return "no heading with anchor #%s in %s" % (anchor, doc_rel)
    return None


def check_file(root, rel, cache):
    """Yields (line number, citation, reason) for each bad citation in ROOT/rel."""
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (UnicodeDecodeError, OSError):
        return  # binary or unreadable: nothing to cite
    is_md = rel.endswith(".md")
    in_docs = rel.startswith("docs/")
    folder = os.path.dirname(rel)
    for no, line in enumerate(lines, 1):
        outside = [m.span() for m in SHARED_PATH.finditer(line)]  # reported once, below
        for m in DOC_CITATION.finditer(line):
            if any(a <= m.start() < b for a, b in outside):
                continue
            reason = check_target(root, "docs/" + m.group(1), m.group(2), cache)
            if reason:
                yield no, m.group(0), reason
        if is_md:
            for m in MD_LINK.finditer(line):
                target, anchor = m.group(1), m.group(2)
                if not target and not anchor:
                    continue
                doc = os.path.normpath(os.path.join(folder, target)).replace(os.sep, "/") if target else rel
                reason = check_target(root, doc, anchor, cache)
                if reason:
                    yield no, m.group(0)[2:-1], reason
        for m in SHARED_BARE.finditer(line):
            yield no, m.group(0), "cites a design document outside the repository; cite docs/<file>.md#<section>"
        if not in_docs:
            for m in ARCH_BARE.finditer(line):
                yield no, m.group(0), "cite it as docs/ARCHITECTURE.md (a path inside the repository)"
        for m in SHARED_PATH.finditer(line):
            yield no, m.group(0), "a path outside the repository; cite docs/<file>.md#<section>"


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__)
        return 2
    root = os.path.abspath(argv[1] if len(argv) == 2 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if not os.path.isdir(root):
        print("check_citations: %s is not a directory" % root, file=sys.stderr)
        return 2
    cache, bad, files = {}, 0, listed_files(root)
    for rel in files:
        for no, citation, reason in check_file(root, rel, cache):
            print("%s:%d: %s: %s" % (rel, no, citation, reason))
            bad += 1
    if bad:
        print("check_citations: %d bad citation(s) in %d files scanned" % (bad, len(files)), file=sys.stderr)
        return 1
    print("check_citations: %d files scanned, every cited document and section exists" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
