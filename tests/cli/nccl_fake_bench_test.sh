#!/usr/bin/env bash
# `fabdiag bench --backend nccl -g N` against the fake libcudart and libnccl (tests/fakes/): every
# collective at 2 and 4 "GPUs", algbw = size/time (x (n-1)/n for hypercube) and busbw = algbw x
# the nccl-tests factor (recomputed here, not read from perf/bandwidth.cpp), the per-iteration
# statistics and devices, #wrong = 0 on a good run and > 0 when the fake corrupts a rank's
# result, alltoall, gather and scatter through the native calls and through grouped send/recv,
# CUDA graph capture (-G) replayed by the fake (and caught when it is not), --format nccl-tests
# read back by `import nccl-tests` with the same numbers, a run cut by --timeout (partial,
# exit 4), and every start-up failure giving exit 3 and a reason that names the library and
# the call.
#   tests/cli/nccl_fake_bench_test.sh FABDIAG FAKE_CUDART FAKE_NCCL FAKE_NCCL_NO_ALLTOALL FAKE_NVML
set -u
bin=$1 cudart=$2 nccl=$3 nccl_no_a2a=$4 not_nccl=$5
export FABDIAG_CUDART_LIB=$cudart FABDIAG_NCCL_LIB=$nccl
unset FAKE_CUDA_DEVICES FAKE_NCCL_INIT_FAIL FAKE_NCCL_CORRUPT_RANK FAKE_CUDA_GRAPH_NO_REPLAY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect RC NAME ARGS...: runs fabdiag, keeps stdout in $tmp/NAME.out and stderr in $tmp/NAME.err.
expect() {
  local want=$1 name=$2
  shift 2
  "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want: fabdiag $*"
    sed 's/^/  | /' "$tmp/$name.err" | tail -5
    fail=1
    return 1
  fi
}

# stderr_has NAME TEXT
stderr_has() {
  grep -qF -- "$2" "$tmp/$1.err" || { echo "FAIL $1: stderr lacks '$2':"; sed 's/^/  | /' "$tmp/$1.err"; fail=1; }
}

# verify NAME GPUS WRONG(zero|some): the JSON's maths and data check (tests/cli/nccl_bench_check.py).
verify() {
  python3 "$(dirname "$0")/nccl_bench_check.py" "$tmp/$1.out" "$2" "$3" gpus || fail=1
}

sweep=(-b 16 -e 64K -f 4 -w 1 -n 3 --format json)
for g in 2 4; do
  for c in all_reduce all_gather reduce_scatter alltoall broadcast reduce sendrecv gather scatter hypercube; do
    expect 0 "$c-g$g" bench "$c" --backend nccl -g "$g" "${sweep[@]}" && verify "$c-g$g" "$g" zero
  done
done
# Element counts as nccl-tests gives them: 64 KiB of float = 16384 elements; all_gather's count
# is the per-rank block (16384 / 4).
python3 -c "
import json,sys
a=json.load(open('$tmp/all_reduce-g4.out'))['data']['results'][-1]; g=json.load(open('$tmp/all_gather-g4.out'))['data']['results'][-1]
sys.exit(0 if (a['size_bytes'],a['count'],g['size_bytes'],g['count'])==(65536,16384,65536,4096) else 1)" ||
  { echo "FAIL counts: all_reduce/all_gather rows at 64K are not (65536, 16384) / (65536, 4096)"; fail=1; }
for d in double int32 int64; do
  expect 0 "all_reduce-$d" bench all_reduce --backend nccl -g 2 --dtype "$d" "${sweep[@]}" && verify "all_reduce-$d" 2 zero
done
# NCCL before 2.28 has no ncclAlltoAll, ncclGather, ncclScatter: grouped ncclSend/ncclRecv, same results.
for c in alltoall gather scatter; do
  FABDIAG_NCCL_LIB=$nccl_no_a2a expect 0 "$c-grouped" bench "$c" --backend nccl -g 4 --root 2 "${sweep[@]}" &&
    verify "$c-grouped" 4 zero
done
FAKE_NCCL_CORRUPT_RANK=1 FABDIAG_NCCL_LIB=$nccl_no_a2a expect 1 scatter-corrupt bench scatter --backend nccl -g 4 \
  "${sweep[@]}" && verify scatter-corrupt 4 some
# hypercube needs a power-of-two rank count (nccl-tests skips it otherwise): a usage error.
expect 2 hypercube-g3 bench hypercube --backend nccl -g 3 && stderr_has hypercube-g3 "power-of-two rank count"

# -G: the calls of a size captured into a CUDA graph, the graph launched N times (the fake
# replays what it recorded); a graph that is not replayed leaves the poisoned buffer: #wrong > 0.
for c in all_reduce alltoall hypercube; do
  expect 0 "$c-graph" bench "$c" --backend nccl -g 4 -G 3 "${sweep[@]}" && verify "$c-graph" 4 zero
done
FAKE_CUDA_GRAPH_NO_REPLAY=1 expect 1 graph-not-replayed bench all_reduce --backend nccl -g 2 -G 2 "${sweep[@]}" &&
  verify graph-not-replayed 2 some
expect 2 graph-with-mpi bench all_reduce -G 2 && stderr_has graph-with-mpi "CUDA graphs are for --backend nccl"

# --format nccl-tests: the familiar table, read back by `import nccl-tests` with the same sizes,
# counts, times, busbw and #wrong of both halves, out of place and in place (within print
# precision; in-place alltoall's #wrong N/A both ways); the JSON of the same run comes from
# --checkpoint, which the finished run writes too.
for c in all_reduce alltoall; do
  expect 0 "$c-nt" bench "$c" --backend nccl -g 4 -b 8 -e 4M -f 8 -w 1 -n 3 --format nccl-tests \
    --checkpoint "$tmp/$c-nt.json" &&
    expect 0 "$c-nt-import" import nccl-tests "$tmp/$c-nt.out" --format json &&
    python3 - "$tmp/$c-nt.out" "$tmp/$c-nt.json" "$tmp/$c-nt-import.out" <<'PY' || fail=1
import json, re, sys
text = open(sys.argv[1]).read()
bench = json.load(open(sys.argv[2]))["data"]
back = json.load(open(sys.argv[3]))["data"]
errors = []
for want in ["# nThread 1 nGpus 4 minBytes 8 maxBytes 4194304 step: 8(factor) warmup iters: 1 iters: 3",
             "#  Rank  3 Group  0 Pid", "device  3 [0000:13:00] Fake GPU 3", "out-of-place", "in-place",
             "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : ", "# Collective test concluded: "]:
    if want not in text: errors.append("table lacks %r" % want)
if back["collective"] != bench["collective"] or back["ranks"] != 4: errors.append("collective/ranks %r %r" % (back["collective"], back["ranks"]))
if [r["size_bytes"] for r in back["results"]] != [r["size_bytes"] for r in bench["results"]]: errors.append("sizes differ")
for a, b in zip(bench["results"], back["results"]):
    us = a["time_s"] * 1e6
    tol_us = 0.005 if us < 1e4 else 0.5  # 2 decimals of us, fewer when wide (getFloatStr)
    if abs(b["time_s"] * 1e6 - us) > tol_us + 1e-9: errors.append("size %d: time %r vs %r" % (a["size_bytes"], b["time_s"], a["time_s"]))
    if abs(b["busbw_bytes_per_s"] - a["busbw_bytes_per_s"]) > 0.5e7 + 1e-3: errors.append("size %d: busbw %r vs %r" % (a["size_bytes"], b["busbw_bytes_per_s"], a["busbw_bytes_per_s"]))
    if b["count"] != a["count"] or b["wrong_elements"] != a["wrong_elements"]: errors.append("size %d: count/#wrong" % a["size_bytes"])
    ip, bip = a["in_place"], b.get("in_place") or {}
    if abs((bip.get("time_s") or 0) * 1e6 - ip["time_s"] * 1e6) > (0.005 if ip["time_s"] < 1e-2 else 0.5) + 1e-9:
        errors.append("size %d: in-place time %r vs %r" % (a["size_bytes"], bip.get("time_s"), ip["time_s"]))
    if abs((bip.get("busbw_bytes_per_s") or 0) - ip["busbw_bytes_per_s"]) > 0.5e7 + 1e-3:
        errors.append("size %d: in-place busbw %r vs %r" % (a["size_bytes"], bip.get("busbw_bytes_per_s"), ip["busbw_bytes_per_s"]))
    if bip.get("wrong_elements") != ip["wrong_elements"]:  # null both ways for alltoall (N/A)
        errors.append("size %d: in-place #wrong %r vs %r" % (a["size_bytes"], bip.get("wrong_elements"), ip["wrong_elements"]))
halves = [h["busbw_bytes_per_s"] for r in bench["results"] for h in (r, r["in_place"])]
avg = sum(halves) / len(halves)  # nccl-tests averages over both halves of every row
if abs(back["nccl_tests"]["avg_busbw_bytes_per_s"] - avg) > 1e-5 * avg + 1e3: errors.append("avg busbw %r vs %r" % (back["nccl_tests"]["avg_busbw_bytes_per_s"], avg))
for e in errors: print("FAIL nccl-tests round trip (%s): %s" % (sys.argv[1], e))
sys.exit(1 if errors else 0)
PY
done
FAKE_NCCL_CORRUPT_RANK=1 expect 1 corrupt-nt bench all_reduce --backend nccl -g 2 -b 1K -e 4K --format nccl-tests &&
  grep -q '# Out of bounds values : 6 FAILED' "$tmp/corrupt-nt.out" && grep -q '# fabdiag: critical data_corruption' "$tmp/corrupt-nt.out" ||
  { echo "FAIL corrupt-nt: no FAILED out-of-bounds line or finding"; cat "$tmp/corrupt-nt.out"; fail=1; }
expect 2 nt-not-bench topo --format nccl-tests && stderr_has nt-not-bench "--format nccl-tests is supported by \`fabdiag bench\` only"

# The data check catches a corrupted result: #wrong > 0 on every size, exit 1 (critical finding).
FAKE_NCCL_CORRUPT_RANK=1 expect 1 corrupt bench all_reduce --backend nccl -g 2 "${sweep[@]}" && verify corrupt 2 some
FAKE_NCCL_CORRUPT_RANK=3 FABDIAG_NCCL_LIB=$nccl_no_a2a expect 1 corrupt-grouped bench alltoall --backend nccl -g 4 \
  "${sweep[@]}" && verify corrupt-grouped 4 some
FAKE_NCCL_CORRUPT_RANK=1 expect 1 corrupt-table bench all_reduce --backend nccl -g 2 -b 1K -e 1K --format table &&
  grep -q 'nccl backend' "$tmp/corrupt-table.out" && grep -q 'rank 1 .* received 2 wrong elements' "$tmp/corrupt-table.out" ||
  { echo "FAIL corrupt-table: no nccl backend title or data_corruption of rank 1"; cat "$tmp/corrupt-table.out"; fail=1; }

# A run cut by its deadline delivers the sizes that finished, marked partial, as an nccl run (exit 4).
expect 4 cut bench all_reduce --backend nccl -g 2 -b 1M -e 16M -w 5 -n 200 --timeout 1 --format json -q &&
  python3 -c "
import json,sys
d=json.load(open('$tmp/cut.out'))
sys.exit(0 if d['partial'] and d['data']['backend']=='nccl' and 'deadline' in d['cut']['reason'] else 1)" ||
  { echo "FAIL cut: not a partial nccl result cut by the deadline"; head -c 600 "$tmp/cut.out"; fail=1; }

# Start-up failures: exit 3, the library and the call named.
FAKE_NCCL_INIT_FAIL=1 expect 3 init-fail bench all_reduce --backend nccl -g 2 &&
  stderr_has init-fail "ncclCommInitAll(2 GPUs) failed: unhandled system error" &&
  stderr_has init-fail "FAKE_NCCL_INIT_FAIL=1"
FAKE_CUDA_DEVICES=0 expect 3 no-device bench all_reduce --backend nccl -g 1 &&
  stderr_has no-device "libcudart ($cudart): no CUDA-capable device: cudaGetDeviceCount returned 100 cudaErrorNoDevice"
FAKE_CUDA_DEVICES=2 expect 3 too-few bench all_reduce --backend nccl -g 4 && stderr_has too-few "-g 4 asks for 4 GPUs"
FABDIAG_NCCL_LIB=$not_nccl expect 3 not-nccl bench all_reduce --backend nccl -g 2 &&
  stderr_has not-nccl "has no symbol ncclGetVersion: it is not NCCL"
FABDIAG_CUDART_LIB=$nccl expect 3 not-cudart bench all_reduce --backend nccl -g 2 &&
  stderr_has not-cudart "has no symbol cudaRuntimeGetVersion@libcudart.so."
FABDIAG_NCCL_LIB=/nonexistent/libnccl.so.2 expect 3 no-nccl bench all_reduce --backend nccl -g 2 &&
  stderr_has no-nccl "libnccl.so.2: not found (/nonexistent/libnccl.so.2:"
# Usage: -g belongs to --backend nccl, and is 1..64.
expect 2 g-with-mpi bench all_reduce -g 2 && stderr_has g-with-mpi "local GPUs are for --backend nccl"
expect 2 g-too-many bench all_reduce --backend nccl -g 65

[ $fail -eq 0 ] && echo "ok: nccl backend against the fakes"
exit $fail
