#!/usr/bin/env bash
# Integration test of a cut `fabdiag triage --hostfile` on the emulated cluster (4 nodes, node03
# at 100 Mbit/s so the walk takes a while; real MPI ranks in network namespaces). README
# "Partial results", docs/SCHEMA.md#partial-results:
#   a) SIGINT to fabdiag once the checkpoint shows both sweeps finished -> exit 130, stdout one
#      JSON document, partial, cut by SIGINT, the finished sweeps with numbers, no suspect; the
#      checkpoint file (written by the launcher from what rank 0 streams) valid JSON
#   b) --timeout 12 -o FILE --full-sweeps -> exit 4, FILE written, partial, cut by the deadline,
#      the finished steps with numbers; stdout empty (every sweep size runs, so the walk outlasts
#      the deadline however fast the sweeps would otherwise stop: ~60 s here, 12 s x slowdown)
# Needs root (namespaces, tc), mpirun and python3; prints "SKIPPED: reason" and exits 77
# otherwise, or when another emulated cluster is up (one per machine).
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude triage-partial "$1"
set -m  # background jobs keep SIGINT

job=""
emu_cleanup_extra() { [ -z "$job" ] || kill -KILL -- "-$job" 2>/dev/null; }
emu_workspace
emu_up --nodes 4 --slow-node node03=100mbit
walk=(triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json
      --pair-size 4M --pair-iters 5)
fails=0

CHECK_HELPERS='
def sweeps_with_numbers(doc):
    return [b["collective"] for b in doc["data"]["bench"]
            if b["results"] and all(r["busbw_bytes_per_s"] > 0 for r in b["results"])]
def screen_values(doc):
    pw = doc["data"].get("pairwise") or {}
    return sum(1 for row in pw.get("matrix_bytes_per_s", []) for v in row if isinstance(v, (int, float)) and v > 0)'

echo "a) SIGINT once both sweeps finished" >&2
"$bin" "${walk[@]}" --checkpoint "$out/a.ckpt" >"$out/a.out" 2>"$out/a.err" &
job=$!
if wait_for_checkpoint "$out/a.ckpt" 'len(d["data"].get("bench", [])) == 2' 90; then kill -INT "$job"; fi
finish_job a "$out" 60
check_json "$out" a '
ok("exit 130", rc == 130)
ok("stdout one JSON document, partial", d is not None and d.get("partial") is True)
ok("cut by SIGINT", d["cut"]["reason"] == "interrupted by SIGINT")
ok("both sweeps with numbers", sweeps_with_numbers(d) == ["all_reduce", "alltoall"])
ok("no suspect named before the decision", d["data"]["suspects"] == [])
ok("the cut entry in errors[]", any(e["code"] == "interrupted" and e["source"] == "fabdiag" for e in d["errors"]))
ok("checkpoint valid JSON with the sweeps", c is not None and len(c["data"]["bench"]) == 2 and c["partial"] is True)
'

deadline=$((12 * slow))  # slow: FABDIAG_TEST_SLOWDOWN (lib.sh); under the sanitizers no sweep finishes in 12 s
echo "b) --timeout $deadline with -o" >&2
"$bin" "${walk[@]}" --full-sweeps --timeout "$deadline" -o "$out/b.o.json" --checkpoint "$out/b.ckpt" >"$out/b.out" 2>"$out/b.err" &
job=$!
finish_job b "$out" 60
check_json "$out" b '
ok("exit 4", rc == 4)
ok("stdout empty (the result went to -o)", out_text == "")
ok("-o partial, cut by the deadline", o is not None and o["partial"] is True and o["cut"]["reason"] == "deadline of '"$deadline"' s (--timeout) passed")
ok("the finished steps with numbers (the screen runs first)", screen_values(o) >= 1 or len(sweeps_with_numbers(o)) >= 1)
ok("a timeout entry in errors[]", any(e["code"] == "timeout" for e in o["errors"]))
ok("checkpoint valid JSON, partial", c is not None and c["partial"] is True)
'

echo "triage_partial_emu: $fails scenario(s) failed"
[ "$fails" -eq 0 ]
