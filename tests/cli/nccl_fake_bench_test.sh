#!/usr/bin/env bash
# `fabdiag bench --backend nccl -g N` against the fake libcudart and libnccl (tests/fakes/): every
# collective at 2 and 4 "GPUs", algbw = size/time and busbw = algbw x the nccl-tests factor
# (recomputed here, not read from perf/bandwidth.cpp), #wrong = 0 on a good run and > 0 when the
# fake corrupts a rank's result, alltoall through ncclAlltoAll and through grouped send/recv, and
# a run cut by --timeout (partial, exit 4), and every start-up failure giving exit 3 and a reason
# that names the library and the call.
#   tests/cli/nccl_fake_bench_test.sh FABDIAG FAKE_CUDART FAKE_NCCL FAKE_NCCL_NO_ALLTOALL FAKE_NVML
set -u
bin=$1 cudart=$2 nccl=$3 nccl_no_a2a=$4 not_nccl=$5
export FABDIAG_CUDART_LIB=$cudart FABDIAG_NCCL_LIB=$nccl
unset FAKE_CUDA_DEVICES FAKE_NCCL_INIT_FAIL FAKE_NCCL_CORRUPT_RANK
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
  for c in all_reduce all_gather reduce_scatter alltoall broadcast reduce sendrecv; do
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
# NCCL before 2.28 has no ncclAlltoAll: grouped ncclSend/ncclRecv, same results.
FABDIAG_NCCL_LIB=$nccl_no_a2a expect 0 alltoall-grouped bench alltoall --backend nccl -g 4 "${sweep[@]}" &&
  verify alltoall-grouped 4 zero

# The data check catches a corrupted result: #wrong > 0 on every size, exit 1 (critical finding).
FAKE_NCCL_CORRUPT_RANK=1 expect 1 corrupt bench all_reduce --backend nccl -g 2 "${sweep[@]}" && verify corrupt 2 some
FAKE_NCCL_CORRUPT_RANK=3 FABDIAG_NCCL_LIB=$nccl_no_a2a expect 1 corrupt-grouped bench alltoall --backend nccl -g 4 \
  "${sweep[@]}" && verify corrupt-grouped 4 some
FAKE_NCCL_CORRUPT_RANK=1 expect 1 corrupt-table bench all_reduce --backend nccl -g 2 -b 1K -e 1K --format table &&
  grep -q 'nccl backend' "$tmp/corrupt-table.out" && grep -q 'rank 1 .* received 1 wrong elements' "$tmp/corrupt-table.out" ||
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
