#!/usr/bin/env bash
# Integration test: `fabdiag bench all_reduce` and `fabdiag pairwise` with 4 real MPI ranks on
# this host (TCP between processes), asserting the JSON contract's values: 4 ranks, 0 wrong
# elements, busbw > 0, a 4x4 matrix with a null diagonal, one JSON document on stdout (rank 0
# only). Usage: bench_local_test.sh FABDIAG_BINARY. Exit 77 ("SKIPPED: reason") without mpirun
# or python3.
set -u
bin=${1:?usage: $0 FABDIAG_BINARY}
command -v mpirun >/dev/null 2>&1 || { echo "SKIPPED: mpirun not found (install openmpi-bin)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIPPED: python3 not found (needed to read the JSON)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# mpi_yield_when_idle: 4 busy-polling ranks on 2 cores otherwise starve each other
# (docs/emulation.md#mpirun-flags).
mpi=(mpirun --allow-run-as-root --oversubscribe -np 4 --bind-to none --mca btl tcp,self
     --mca mpi_yield_when_idle 1)

if ! timeout 60 "${mpi[@]}" "$bin" bench all_reduce -b 1K -e 64K -f 4 -w 1 -n 3 --skew-iters 3 --format json -q \
    >"$tmp/bench.json" 2>"$tmp/bench.err"; then
  echo "FAIL: fabdiag bench exited non-zero"; cat "$tmp/bench.err"; exit 1
fi
# Exit 1 (a pair or node flagged) is allowed: 4 ranks on a shared 2-core machine are noisy, and
# this test checks the measurement and its contract, not a verdict.
timeout 60 "${mpi[@]}" "$bin" pairwise --size 256K -n 2 --format json -q \
  >"$tmp/pairwise.json" 2>"$tmp/pairwise.err"
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
  echo "FAIL: fabdiag pairwise exited $rc"; cat "$tmp/pairwise.err"; exit 1
fi

python3 - "$tmp/bench.json" "$tmp/pairwise.json" <<'PY'
import json, sys

failures = 0
def check(what, ok):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    failures += 0 if ok else 1

def load_one(path):
    text = open(path).read()
    doc, end = json.JSONDecoder().raw_decode(text)
    check(path.rsplit("/", 1)[-1] + " is exactly one JSON document (only rank 0 prints)",
          text[end:].strip() == "")
    return doc

b = load_one(sys.argv[1])
d = b["data"]
rows = d["results"]
check("bench schema", b["schema"] == "fabdiag.bench/1")
check("4 ranks", d["ranks"] == 4 and len(d["hosts"]) == 4)
check("sizes 1K 4K 16K 64K", [r["size_bytes"] for r in rows] == [1024, 4096, 16384, 65536])
check("counts in floats", [r["count"] for r in rows] == [256, 1024, 4096, 16384])
check("0 wrong elements", all(r["wrong_elements"] == 0 for r in rows))
check("busbw > 0", all(r["busbw_bytes_per_s"] > 0 for r in rows))
check("busbw = algbw x 2(n-1)/n", d["busbw_factor"] == "2(n-1)/n" and
      all(abs(r["busbw_bytes_per_s"] / r["algbw_bytes_per_s"] - 1.5) < 1e-9 for r in rows))
check("time = max of 4 per-rank times", all(len(r["per_rank_time_s"]) == 4 and
      r["time_s"] == max(r["per_rank_time_s"]) for r in rows))
check("algbw = size / time", all(abs(r["algbw_bytes_per_s"] * r["time_s"] / r["size_bytes"] - 1) < 1e-9
      for r in rows))
check("no findings", b["findings"] == [])
# Per call, a rank's lateness and its wait each fit inside the call's span (latest exit - earliest
# entry), so their medians fit inside the span's median; no rank need be first in most calls.
check("skew probe: per-rank entry lateness and wait within the step time",
      b["params"]["skew_iters"] == 3 and all(len(r["entry_lateness_s"]) == 4 and min(r["entry_lateness_s"]) >= 0 and
      len(r["wait_s"]) == 4 and min(r["wait_s"]) >= 0 and r["skew_iteration_s"] >= max(r["wait_s"]) and
      r["skew_iteration_s"] >= max(r["entry_lateness_s"]) for r in rows))

p = load_one(sys.argv[2])
d = p["data"]
m = d["matrix_bytes_per_s"]
check("pairwise schema", p["schema"] == "fabdiag.pairwise/1")
check("4 distinct host labels", len(d["hosts"]) == 4 and len(set(d["hosts"])) == 4)
check("3 rounds of 2 pairs", len(d["rounds"]) == 3 and all(len(r) == 2 for r in d["rounds"]))
check("every pair once", sorted(tuple(pr) for r in d["rounds"] for pr in r) ==
      [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
check("4x4 matrix", len(m) == 4 and all(len(row) == 4 for row in m))
check("null diagonal", all(m[i][i] is None for i in range(4)))
check("every other cell > 0", all(m[i][j] > 0 for i in range(4) for j in range(4) if i != j))
check("a median per node and a fleet median",
      sorted(d["node_median_bytes_per_s"]) == sorted(d["hosts"]) and d["fleet_median_bytes_per_s"] > 0)
check("size and iterations recorded", d["size_bytes"] == 262144 and d["iters"] == 2)
sys.exit(1 if failures else 0)
PY
