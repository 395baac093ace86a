#!/usr/bin/env python3
"""Fails when a source file includes a header of a library its own library does not link.

Every folder of fabdiag is one CMake library; CMakeLists.txt declares the edges with
target_link_libraries and writes them to RULES (one line per target: "target dir dep..."; see
fabdiag_write_include_rules there). A file in folder D may include headers of D itself and of
the folders of every library D's library links, directly or transitively. Anything else is a
wrong include: it compiles (all headers sit under one include root) but breaks the layering,
so this check runs as part of every build (target check_includes).

usage: check-includes.py RULES SOURCE_ROOT [STAMP]
Prints each violation as "file:line: includes "x.h" (folder F) but LIB links only: ...".
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def load_rules(path):
    dir_of, deps = {}, {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            target, directory, *direct = parts
            dir_of[target] = directory
            deps[target] = direct
    return dir_of, deps


def closure(target, deps, seen=None):
    seen = set() if seen is None else seen
    for d in deps.get(target, []):
        if d not in seen:
            seen.add(d)
            closure(d, deps, seen)
    return seen


def header_dir(include, dirs):
    """The library folder an include names: the longest folder that prefixes it."""
    best = None
    for d in dirs:
        if include.startswith(d + "/") and (best is None or len(d) > len(best)):
            best = d
    return best


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    rules, root = sys.argv[1], sys.argv[2]
    dir_of, deps = load_rules(rules)
    dirs = set(dir_of.values())
    bad = []
    for target, directory in sorted(dir_of.items()):
        allowed = {directory} | {dir_of[d] for d in closure(target, deps) if d in dir_of}
        folder = os.path.join(root, directory)
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".h", ".cpp", ".c")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if not m:
                        continue
                    hdir = header_dir(m.group(1), dirs)
                    if hdir is None or hdir in allowed:
                        continue
                    links = " ".join(sorted(dir_of[d] for d in closure(target, deps) if d in dir_of))
                    bad.append(f'{directory}/{name}:{lineno}: includes "{m.group(1)}" (folder {hdir}) '
                               f"but {target} links only: {links or 'nothing'}")
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        print(f"check-includes: {len(bad)} include(s) against the dependency edges of CMakeLists.txt "
              "(link the library, or move the code)", file=sys.stderr)
        return 1
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
