#!/usr/bin/env bash
# Integration test: `fabdiag bench --format nccl-tests` on the MPI backend (host memory), one
# rank started without mpirun (MPI singleton) and 2 ranks under mpirun, piped into
# `fabdiag import nccl-tests -`: the sizes, counts, #wrong and busbw read back equal what the
# same run's JSON (--checkpoint) holds, within the table's print precision; the table has
# nccl-tests' header, column and footer lines. At 2 ranks gather, scatter and hypercube run
# too, their busbw = size/time x the nccl-tests factor recomputed here (gather, scatter:
# (n-1)/n; hypercube: algbw = size/time x (n-1)/n, busbw = algbw), and the per-size iteration
# statistics are ordered (min <= p50 <= p99 <= max) over -n samples.
# Usage: bench_nccl_format_test.sh FABDIAG_BINARY. Exit 77 ("SKIPPED: reason") without mpirun
# or python3.
set -u
bin=${1:?usage: $0 FABDIAG_BINARY}
command -v mpirun >/dev/null 2>&1 || { echo "SKIPPED: mpirun not found (install openmpi-bin)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIPPED: python3 not found (needed to read the JSON)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# mpi_yield_when_idle: busy-polling ranks on 2 cores otherwise starve each other
# (docs/emulation.md#mpirun-flags).
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca btl tcp,self
     --mca mpi_yield_when_idle 1)
sweep=(-b 8 -e 1M -f 8 -w 1 -n 5)

# run NAME LAUNCHER... -- FABDIAG-ARGS...: the table into NAME.txt, the run's JSON into
# NAME.json (--checkpoint), the table read back into NAME.back.json.
run() {
  local name=$1; shift
  local launch=()
  while [ "$1" != "--" ]; do launch+=("$1"); shift; done
  shift
  if ! timeout 120 "${launch[@]}" "$bin" "$@" --format nccl-tests --checkpoint "$tmp/$name.json" \
      >"$tmp/$name.txt" 2>"$tmp/$name.err"; then
    echo "FAIL $name: fabdiag bench exited non-zero"; cat "$tmp/$name.err"; fail=1; return 1
  fi
  if ! "$bin" import nccl-tests - --format json <"$tmp/$name.txt" >"$tmp/$name.back.json" 2>"$tmp/$name.back.err"; then
    echo "FAIL $name: import nccl-tests of the table exited non-zero"; cat "$tmp/$name.back.err" "$tmp/$name.txt"
    fail=1; return 1
  fi
}

# check NAME RANKS: the round trip and the factors (python below).
check() {
  python3 - "$tmp/$1" "$2" <<'PY' || fail=1
import json, sys
base, n = sys.argv[1], int(sys.argv[2])
name = base.rsplit("/", 1)[-1]
text = open(base + ".txt").read()
bench = json.load(open(base + ".json"))["data"]
back = json.load(open(base + ".back.json"))["data"]
c = bench["collective"]
errors = []
for want in ["# Collective test starting: %s_perf\n" % c,
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 8(factor) warmup iters: 1 iters: 5",
             "#  Rank  0 Group  0 Pid", "out-of-place", "in-place",
             "#       size         count      type   redop    root     time   algbw   busbw  #wrong",
             "# Out of bounds values : 0 OK\n", "# Avg bus bandwidth    : ",
             "# Collective test concluded: %s_perf\n" % c]:
    if want not in text: errors.append("table lacks %r" % want)
if text.count("#  Rank ") != n: errors.append("%d Rank lines, want %d" % (text.count("#  Rank "), n))
factor = {"all_reduce": 2 * (n - 1) / n, "gather": (n - 1) / n, "scatter": (n - 1) / n, "hypercube": 1.0}[c]
alg = (n - 1) / n if c == "hypercube" else 1.0
if back["collective"] != c or back["ranks"] != n or bench["ranks"] != n:
    errors.append("collective/ranks %r/%r, want %s/%d" % (back["collective"], back["ranks"], c, n))
want_sizes = [8, 64, 512, 4096, 32768, 262144]
if c == "hypercube": want_sizes = want_sizes[1:]  # 2 floats: a 0-element block (4-element ALIGN), skipped
sizes = [r["size_bytes"] for r in bench["results"]]
if sizes != want_sizes: errors.append("sizes %r, want %r" % (sizes, want_sizes))
if [r["size_bytes"] for r in back["results"]] != sizes: errors.append("sizes read back %r" % [r["size_bytes"] for r in back["results"]])
for a, b in zip(bench["results"], back["results"]):
    s, t = a["size_bytes"], a["time_s"]
    if not t > 0: errors.append("size %d: time %r" % (s, t)); continue
    if abs(a["algbw_bytes_per_s"] - alg * s / t) > 1e-9 * s / t: errors.append("size %d: algbw %r" % (s, a["algbw_bytes_per_s"]))
    if abs(a["busbw_bytes_per_s"] - factor * alg * s / t) > 1e-9 * s / t: errors.append("size %d: busbw %r" % (s, a["busbw_bytes_per_s"]))
    it = a["iteration_stats"]
    if it["samples"] != 5 or not (0 < it["min_s"] <= it["p50_s"] <= it["p99_s"] <= it["max_s"]):
        errors.append("size %d: iteration_stats %r" % (s, it))
    if b["count"] != a["count"] or b["wrong_elements"] != 0 or a["wrong_elements"] != 0:
        errors.append("size %d: count %r/%r, #wrong %r/%r" % (s, a["count"], b["count"], a["wrong_elements"], b["wrong_elements"]))
    # Printed in 7 characters, 2 decimals while they fit (getFloatStr): time in us, busbw in GB/s.
    if abs(b["time_s"] - t) > 0.005e-6 + 5e-6 * t: errors.append("size %d: time %r read back as %r" % (s, t, b["time_s"]))
    if abs(b["busbw_bytes_per_s"] - a["busbw_bytes_per_s"]) > 0.005e9 + 1e-3:
        errors.append("size %d: busbw %r read back as %r" % (s, a["busbw_bytes_per_s"], b["busbw_bytes_per_s"]))
    if b.get("in_place") is not None and b["in_place"].get("time_s") is not None: errors.append("size %d: in-place half %r, want not measured" % (s, b["in_place"]))
avg = sum(r["busbw_bytes_per_s"] for r in bench["results"]) / len(bench["results"])
got = back.get("nccl_tests", {}).get("avg_busbw_bytes_per_s")
if got is None or abs(got - avg) > 1e-5 * avg + 1e3: errors.append("avg busbw %r, want %r" % (got, avg))
for e in errors: print("FAIL %s: %s" % (name, e))
print(("FAIL " if errors else "ok: ") + "%s: %d sizes round-trip, busbw factor %.4f" % (name, len(sizes), factor * alg))
sys.exit(1 if errors else 0)
PY
}

run singleton env -- bench all_reduce "${sweep[@]}" && check singleton 1
for c in all_reduce gather scatter hypercube; do
  run "np2-$c" "${mpi[@]}" -- bench "$c" "${sweep[@]}" && check "np2-$c" 2
done
exit $fail
