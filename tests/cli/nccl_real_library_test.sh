#!/usr/bin/env bash
# `fabdiag bench --backend nccl -g 1` with this machine's real libcudart and libnccl: where no GPU
# can be used it exits 3 with the reason from libcudart, never a crash; `doctor` says the
# backend is compiled and why it cannot run; under mpirun (-np 2, one rank per GPU) bench,
# pairwise and triage --backend nccl exit 3 too, rank 0 naming the first rank that failed. Skipped where the backend is not compiled, the real
# libraries are absent, or a GPU is usable (then the run itself is the check).
#   tests/cli/nccl_real_library_test.sh FABDIAG
set -u
bin=$1
unset FABDIAG_CUDART_LIB FABDIAG_NCCL_LIB
doctor=$("$bin" doctor --format json 2>/dev/null)
read -r compiled nccl_loaded cuda_loaded gpus <<<"$(python3 -c "
import json,sys
caps={c['name']:c for c in json.loads(sys.argv[1])['data']['capabilities']}
n,c=caps['nccl'],caps['cuda_runtime']
print(int(n['compiled']), int(n['loaded']), int(c['loaded']), 0 if c['why_not'] else 1)" "$doctor")"
[ "$compiled" = 1 ] || { echo "SKIPPED: the NCCL backend is not compiled in this build"; exit 77; }
[ "$nccl_loaded" = 1 ] && [ "$cuda_loaded" = 1 ] || { echo "SKIPPED: no real libnccl.so.2/libcudart.so here"; exit 77; }
[ "$gpus" = 0 ] || { echo "SKIPPED: a GPU is usable here (the GPU check runs the backend for real)"; exit 77; }
fail=0
err=$("$bin" bench all_reduce --backend nccl -g 1 -e 1K 2>&1 >/dev/null)
rc=$?
[ $rc -eq 3 ] || { echo "FAIL: exit $rc, want 3: $err"; fail=1; }
case $err in
  *"NCCL backend cannot run here: libcudart ("*"): no CUDA-capable device: cudaGetDeviceCount returned"*) ;;
  *) echo "FAIL: the reason does not name libcudart and cudaGetDeviceCount: $err"; fail=1 ;;
esac
# One rank per GPU under mpirun: every rank fails the same start-up check; rank 0 says it once.
if command -v mpirun >/dev/null 2>&1; then
  for cmd in "bench all_reduce -e 1K" "pairwise --size 4K -n 1" "triage --no-sweeps --pair-size 4K --pair-iters 1"; do
    # shellcheck disable=SC2086
    err=$(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca btl tcp,self \
      --mca mpi_yield_when_idle 1 "$bin" $cmd --backend nccl -q 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 3 ] || { echo "FAIL mpirun $cmd: exit $rc, want 3: $err"; fail=1; continue; }
    case $err in
      *"NCCL backend cannot run here: rank 0 ("*"): libcudart ("*"): no CUDA-capable device"*) ;;
      *) echo "FAIL mpirun $cmd: the reason does not name rank 0 and libcudart: $err"; fail=1 ;;
    esac
    [ "$(grep -c "NCCL backend cannot run here" <<<"$err")" = 1 ] ||
      { echo "FAIL mpirun $cmd: the reason is not printed once: $err"; fail=1; }
  done
fi
case $doctor in
  *"bench --backend nccl is compiled but cannot run here: libcudart: no GPU or driver here"*) ;;
  *) echo "FAIL: doctor does not say why the compiled backend cannot run"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "ok: exit 3 with: $err"
exit $fail
