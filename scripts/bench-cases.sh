#!/usr/bin/env bash
# How many of the real cases in tests/fixtures/cases fabdiag reads right: runs each case through
# the command a user runs and checks the verdict of tests/cases/verdicts.txt (exit code, the
# findings a correct result has, the "must not" findings). Prints one line per case and
# "N of M cases right".
#   scripts/bench-cases.sh [--build DIR | --bin FABDIAG] [--check]
# --check: exit 1 when a case not marked "open" is wrong, or a case marked "open" is now right
# (update its line); without it, exit 0 whatever the count.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin="" check=0
build=${FABDIAG_BUILD_DIR:-$src/build}
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    *) echo "bench-cases: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$bin" ] || bin=$build/fabdiag
[ -x "$bin" ] || { echo "bench-cases: no fabdiag at $bin (build first: bash scripts/build.sh)" >&2; exit 2; }
python3 - "$bin" "$src/tests/cases/verdicts.txt" "$src/tests/fixtures/cases" "$check" <<'PY'
import glob, json, os, shlex, subprocess, sys
fabdiag, table, cases, check = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
right = total = 0
stale = []
for raw in open(table):
    line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
    if not line:
        continue
    open_why = None
    if " open:" in line:
        line, open_why = line.split(" open:", 1)
    cmd = None
    if " cmd:" in line:
        line, cmd = line.split(" cmd:", 1)
    words = line.split()
    cid, expect, codes = words[0], words[1], words[2:]
    found = glob.glob(os.path.join(cases, cid + "-*.input.txt"))
    if not found:
        print(f"{cid}  MISSING  no fixture {cid}-*.input.txt")
        total += 1
        continue
    args = shlex.split(cmd.replace("FILE", shlex.quote(found[0]))) if cmd else ["import", "--format", "json", found[0]]
    p = subprocess.run([fabdiag, "-q"] + args, capture_output=True, text=True)
    why = []
    want_rc = {"healthy": 0, "fault": 1, "partial": 4}[expect]
    if p.returncode != want_rc:
        why.append(f"exit {p.returncode}, expected {want_rc} ({expect})")
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {"findings": []}
        why.append("no JSON on stdout: " + p.stderr.strip()[:120])
    serious = {f["code"] for f in doc.get("findings", []) if f.get("severity") in ("warn", "error", "critical")}
    for c in codes:
        if c.startswith("!") and c[1:] in serious:
            why.append(f"must not: {c[1:]}")
        elif not c.startswith("!") and c not in serious:
            why.append(f"missing {c}")
    ok = not why
    total += 1
    right += ok
    state = "right" if ok else "WRONG"
    note = "" if ok else "; ".join(why)
    if open_why is not None:
        note = (note + "; " if note else "") + "open:" + open_why
        if ok:
            stale.append(cid)
    elif not ok:
        stale.append(cid)
    print(f"{cid}  {state:5s}  {os.path.basename(found[0])[:60]}  {note}".rstrip())
print(f"{right} of {total} cases right")
if check and stale:
    print("bench-cases: these lines of tests/cases/verdicts.txt disagree with the result: " + " ".join(stale))
    sys.exit(1)
PY
