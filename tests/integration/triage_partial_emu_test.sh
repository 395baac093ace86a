#!/usr/bin/env bash
# Integration test of a cut `fabdiag triage --hostfile` on the emulated cluster (4 nodes, node03
# at 100 Mbit/s so the walk takes a while; real MPI ranks in network namespaces). README
# "Partial results", docs/SCHEMA.md#partial-results:
#   a) SIGINT to fabdiag once the checkpoint shows both sweeps finished -> exit 130, stdout one
#      JSON document, partial, cut by SIGINT, the finished sweeps with numbers, no suspect; the
#      checkpoint file (written by the launcher from what rank 0 streams) valid JSON
#   b) --timeout 12 -o FILE -> exit 4, FILE written, partial, cut by the deadline, the finished
#      steps with numbers; stdout empty
# Needs root (namespaces, tc), mpirun and python3; prints "SKIPPED: reason" and exits 77
# otherwise, or when another emulated cluster is up (one per machine).
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
emu=$root/scripts/emucluster.sh
state=$(mktemp -d /tmp/fabdiag-triage-partial.XXXXXX)
rmdir "$state"
export FABDIAG_EMU_STATE=$state

[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: needs root for network namespaces and tc"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIPPED: mpirun not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed (JSON assertions)"; exit 77; }
if [ -f /run/fabdiag-emucluster.state ] && [ -f "$(cat /run/fabdiag-emucluster.state 2>/dev/null)/env" ]; then
  echo "SKIPPED: another emulated cluster is up ($(cat /run/fabdiag-emucluster.state)); not tearing it down"
  exit 77
fi
set -m  # background jobs keep SIGINT

out=$(mktemp -d)
job=""
cleanup() {
  [ -n "$job" ] && kill -KILL -- "-$job" 2>/dev/null
  "$emu" down --state "$state" >/dev/null 2>&1
  rm -rf "$state" "$out"
}
trap cleanup EXIT
"$emu" up --nodes 4 --slow-node node03=100mbit --state "$state" >"$out/up.log" 2>&1 ||
  { echo "FAIL: emucluster up"; cat "$out/up.log"; exit 1; }
walk=(triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json
      --pair-size 4M --pair-iters 5)
fails=0

wait_for_checkpoint() { # file, python expression over d
  local f=$1 expr=$2 i
  for i in $(seq 900); do
    if [ -s "$f" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('yes' if ($expr) else 'no')" "$f" 2>/dev/null | grep -q yes; then
      return 0
    fi
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# A slowed build (scripts/test-sanitize.sh sets FABDIAG_TEST_SLOWDOWN, an integer) gets longer
# deadlines and waits: under the sanitizers no sweep finishes in 12 s.
slow=${FABDIAG_TEST_SLOWDOWN:-1}
finish() { # name: waits (at most 60 s x slow: mpirun's own stop takes up to 10 s) and keeps the exit code
  local name=$1 i
  for i in $(seq $((600 * slow))); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$job" 2>/dev/null && { echo "FAIL $name: still running $((60 * slow)) s on"; kill -KILL -- "-$job"; }
  wait "$job"
  echo $? >"$out/$name.rc"
  job=""
}

check() { # name, python assertions over d (stdout), o (-o file), c (checkpoint), rc
  local name=$1 code=$2
  if python3 - "$out" "$name" <<PY
import json, os, sys
out, name = sys.argv[1], sys.argv[2]
def load(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    text = open(path).read()
    doc, end = json.JSONDecoder().raw_decode(text)
    if text[end:].strip():
        raise SystemExit(f"{path}: more than one JSON document")
    return doc
rc = int(open(f"{out}/{name}.rc").read())
out_text = open(f"{out}/{name}.json").read()
d = load(f"{out}/{name}.json")
o = load(f"{out}/{name}.o.json")
c = load(f"{out}/{name}.ckpt")
fails = 0
def ok(what, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + name + ": " + what)
    fails += 0 if cond else 1
def sweeps_with_numbers(doc):
    return [b["collective"] for b in doc["data"]["bench"]
            if b["results"] and all(r["busbw_bytes_per_s"] > 0 for r in b["results"])]
$code
sys.exit(1 if fails else 0)
PY
  then :; else fails=$((fails + 1)); grep -v setpgid "$out/$name.err" | tail -5; fi
}

echo "a) SIGINT once both sweeps finished" >&2
"$bin" "${walk[@]}" --checkpoint "$out/a.ckpt" >"$out/a.json" 2>"$out/a.err" &
job=$!
if wait_for_checkpoint "$out/a.ckpt" 'len(d["data"].get("bench", [])) == 2'; then kill -INT "$job"; fi
finish a
check a '
ok("exit 130", rc == 130)
ok("stdout one JSON document, partial", d is not None and d.get("partial") is True)
ok("cut by SIGINT", d["cut"]["reason"] == "interrupted by SIGINT")
ok("both sweeps with numbers", sweeps_with_numbers(d) == ["all_reduce", "alltoall"])
ok("no suspect named before the decision", d["data"]["suspects"] == [])
ok("the cut entry in errors[]", any(e["code"] == "interrupted" and e["source"] == "fabdiag" for e in d["errors"]))
ok("checkpoint valid JSON with the sweeps", c is not None and len(c["data"]["bench"]) == 2 and c["partial"] is True)
'

deadline=$((12 * slow))
echo "b) --timeout $deadline with -o" >&2
"$bin" "${walk[@]}" --timeout "$deadline" -o "$out/b.o.json" --checkpoint "$out/b.ckpt" >"$out/b.json" 2>"$out/b.err" &
job=$!
finish b
check b '
ok("exit 4", rc == 4)
ok("stdout empty (the result went to -o)", out_text == "")
ok("-o partial, cut by the deadline", o is not None and o["partial"] is True and o["cut"]["reason"] == "deadline of '"$deadline"' s (--timeout) passed")
ok("the finished sweeps with numbers", len(sweeps_with_numbers(o)) >= 1)
ok("a timeout entry in errors[]", any(e["code"] == "timeout" for e in o["errors"]))
ok("checkpoint valid JSON, partial", c is not None and c["partial"] is True)
'

echo "triage_partial_emu: $fails scenario(s) failed"
[ "$fails" -eq 0 ]
