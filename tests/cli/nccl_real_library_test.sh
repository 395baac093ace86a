#!/usr/bin/env bash
# `fabdiag bench --backend nccl -g 1` with this machine's real libcudart and libnccl: where no GPU
# can be used it exits 3 with the reason from libcudart, never a crash; `doctor` says the
# backend is compiled and why it cannot run. Skipped where the backend is not compiled, the real
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
case $doctor in
  *"bench --backend nccl is compiled but cannot run here: libcudart: no GPU or driver here"*) ;;
  *) echo "FAIL: doctor does not say why the compiled backend cannot run"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "ok: exit 3 with: $err"
exit $fail
