#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets (tests/fuzz) from the repository's fixtures and,
when present, the shared case files. scripts/test-sanitize.sh (stage fuzz) runs it at every
run, so new fixtures are seeds without anything to regenerate.

    scripts/fuzz-corpus.py OUTDIR [CASES_DIR...]

Writes OUTDIR/<kind>/<name>, one file per seed:
  text    tool outputs: the files of tests/fixtures outside sysfs trees (ethtool -S/-m,
          perfquery, ibqueryerrors, rdma statistic, syslog, lspci, ibstat, ibstatus,
          ibv_devinfo, nccl-tests, nvidia-smi topo, accept specs), the ethtool/<netdev> files of the
          trees, the acceptance specs of docs/specs, and every CASES_DIR/*.input.txt
  tree    sysfs trees as "path:value" lines (tests/fuzz/fuzz_support.h, ScratchTree): every
          fixture tree dumped (links first, then files, one line per line of each text file),
          every *.lines file, a "before" tree and its "after" joined by "### after", and the
          case files that hold sysfs lines
  config  PCI config space images (the trees' .../config files)
  module  module EEPROM page dumps (the trees' ethtool-module/<netdev> files)
Prints one line per kind with its count.
"""
import os
import re
import sys

MAX_SEED = 128 * 1024       # bytes; larger seeds are cut (libFuzzer's -max_len is this too)
MAX_TREE_LINES = 2048       # ScratchTree reads at most this many lines
TREE_DIRS = {"class", "devices", "bus", "module", "kernel", "proc", "sys"}


def is_text(data):
    return b"\0" not in data[:8192]


def read(path):
    with open(path, "rb") as f:
        return f.read(MAX_SEED)


def sysfs_roots(fixtures):
    """(logical prefix, directory) pairs of every tree: a directory holding class/ is a sysfs
    root ("/sys/"); one holding sys/ and proc/ is a host (check fixtures)."""
    roots = []
    for d, subdirs, _ in os.walk(fixtures):
        if "class" in subdirs and os.path.basename(d) != "sys":
            roots.append([("/sys/", d)])
            subdirs[:] = []
        elif "sys" in subdirs:
            host = [("/sys/", os.path.join(d, "sys"))]
            if "proc" in subdirs:
                host.append(("/proc/", os.path.join(d, "proc")))
            roots.append(host)
            subdirs[:] = []
    return roots


def dump_tree(parts):
    """A tree as lines: links first (so files are written through them), then text files."""
    links, files = [], []
    for prefix, top in parts:
        for d, subdirs, names in os.walk(top):
            for n in sorted(subdirs + names):
                p = os.path.join(d, n)
                rel = prefix + os.path.relpath(p, top)
                if os.path.islink(p):
                    links.append(f"{rel} -> {os.readlink(p)}")
                elif os.path.isfile(p):
                    data = read(p)
                    if not is_text(data):
                        continue
                    for line in data.decode("utf-8", "replace").splitlines() or [""]:
                        files.append(f"{rel}:{line}")
            subdirs[:] = [s for s in subdirs if not os.path.islink(os.path.join(d, s))]
    lines = (links + files)[:MAX_TREE_LINES]
    return ("\n".join(lines) + "\n").encode()


class Writer:
    def __init__(self, out):
        self.out = out
        self.counts = {}

    def add(self, kind, name, data):
        d = os.path.join(self.out, kind)
        os.makedirs(d, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:120]
        with open(os.path.join(d, safe), "wb") as f:
            f.write(data[:MAX_SEED])
        self.counts[kind] = self.counts.get(kind, 0) + 1


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fixtures = os.path.join(repo, "tests", "fixtures")
    w = Writer(out)
    for kind in ("text", "tree", "config", "module"):
        os.makedirs(os.path.join(out, kind), exist_ok=True)

    roots = sysfs_roots(fixtures)
    for parts in roots:
        top = parts[0][1]
        name = os.path.relpath(top, fixtures)
        w.add("tree", name, dump_tree(parts))
    for d, subdirs, names in os.walk(fixtures):
        rel_dir = os.path.relpath(d, fixtures)
        in_tree = any(p in TREE_DIRS for p in rel_dir.split(os.sep))
        if {"before", "after"} <= set(subdirs):
            before = dump_tree([("/sys/", os.path.join(d, "before"))])
            after = dump_tree([("/sys/", os.path.join(d, "after"))])
            w.add("tree", rel_dir + "-window", before + b"### after\n" + after)
        for n in names:
            p = os.path.join(d, n)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            rel = os.path.relpath(p, fixtures)
            parent = os.path.basename(d)
            data = read(p)
            if n == "config" and in_tree:
                w.add("config", rel, data)
            elif parent == "ethtool-module":
                w.add("module", rel, data)
            elif parent == "ethtool":
                w.add("text", rel, data)
            elif n.endswith(".lines"):
                w.add("tree", rel, data)
            elif not in_tree and is_text(data) and not n.endswith((".sh", ".py")):
                w.add("text", rel, data)
    specs = os.path.join(repo, "docs", "specs")  # the acceptance specs (fuzz_accept_spec)
    for n in sorted(os.listdir(specs)) if os.path.isdir(specs) else []:
        if n.endswith(".yaml"):
            w.add("text", "spec-" + n, read(os.path.join(specs, n)))
    for cases in sys.argv[2:]:
        if not os.path.isdir(cases):
            continue
        for n in sorted(os.listdir(cases)):
            if not n.endswith(".input.txt"):
                continue
            data = read(os.path.join(cases, n))
            w.add("text", "case-" + n, data)
            if b"/sys/class/" in data:
                w.add("tree", "case-" + n, data)
    for kind in ("text", "tree", "config", "module"):
        print(f"fuzz-corpus: {kind}: {w.counts.get(kind, 0)} seeds")


if __name__ == "__main__":
    main()
