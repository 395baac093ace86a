#!/usr/bin/env bash
# `fabdiag bench|pairwise|triage --backend nccl` with one rank per "GPU" under a real local
# mpirun, against the fake libcudart and libnccl (tests/fakes/; ncclGetUniqueId + MPI_Bcast +
# ncclCommInitRank across processes through shared memory): every collective at -np 2 and 4,
# the maths and #wrong of each result (nccl_bench_check.py), a corrupted result caught, the
# grouped alltoall of an NCCL without ncclAlltoAll/ncclCommSplit, the NCCL environment in params,
# the pairwise matrix over 4 ranks, a triage walk on GPUs, and the injected failures: a failing
# ncclCommInitRank (exit 3, the rank and host named), an asynchronous NCCL error (exit 4 with the
# finished sizes on rank 0; exit 4 from another rank, named), a hang cut by --timeout (exit 4).
#   tests/cli/nccl_fake_mpi_test.sh FABDIAG FAKE_CUDART FAKE_NCCL FAKE_NCCL_NO_ALLTOALL
set -u
bin=$1 cudart=$2 nccl=$3 nccl_old=$4
command -v mpirun >/dev/null 2>&1 || { echo "SKIPPED: mpirun not found (install openmpi-bin)"; exit 77; }
export FABDIAG_CUDART_LIB=$cudart FABDIAG_NCCL_LIB=$nccl FAKE_NCCL_TIMEOUT_S=30
unset FAKE_CUDA_DEVICES FAKE_NCCL_INIT_FAIL FAKE_NCCL_CORRUPT_RANK FAKE_NCCL_INIT_FAIL_RANK \
  FAKE_NCCL_ASYNC_ERROR_RANK FAKE_NCCL_HANG_RANK NCCL_ALGO NCCL_IB_HCA
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
here=$(dirname "$0")
host=$(hostname)

# mpi_yield_when_idle: busy-polling ranks on 2 cores otherwise starve each other
# (docs/emulation.md#mpirun-flags).
mpi() {
  local np=$1
  shift
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" --bind-to none --mca btl tcp,self \
    --mca mpi_yield_when_idle 1 "$bin" "$@"
}

# expect RC NAME NP ARGS...: runs fabdiag on NP ranks; stdout in $tmp/NAME.out, stderr in .err.
expect() {
  local want=$1 name=$2 np=$3
  shift 3
  mpi "$np" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want: mpirun -np $np fabdiag $*"
    sed 's/^/  | /' "$tmp/$name.err" | tail -8
    fail=1
    return 1
  fi
}

stderr_has() {
  grep -qF -- "$2" "$tmp/$1.err" || { echo "FAIL $1: stderr lacks '$2':"; sed 's/^/  | /' "$tmp/$1.err" | tail -8; fail=1; }
}

verify() {
  python3 "$here/nccl_bench_check.py" "$tmp/$1.out" "$2" "$3" mpi || fail=1
}

sweep=(-b 16 -e 64K -f 4 -w 1 -n 3 --format json -q)
for np in 2 4; do
  for c in all_reduce all_gather reduce_scatter alltoall broadcast reduce sendrecv gather scatter hypercube; do
    expect 0 "$c-np$np" "$np" bench "$c" --backend nccl "${sweep[@]}" && verify "$c-np$np" "$np" zero
  done
done
# The NCCL facts and settings in params; one host entry per rank, each rank on its local rank's GPU.
NCCL_ALGO=Ring NCCL_IB_HCA=mlx5_0 expect 0 params 2 bench all_reduce --backend nccl "${sweep[@]}" &&
  python3 - "$tmp/params.out" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))["params"]
want = {"backend": "nccl", "launch": "mpi, one rank per GPU", "nccl_split": "ncclCommSplit", "gpu": 0}
bad = {k: p.get(k) for k, v in want.items() if p.get(k) != v}
env = p.get("nccl_env", {})
if env.get("NCCL_ALGO") != "Ring" or env.get("NCCL_IB_HCA") != "mlx5_0": bad["nccl_env"] = env
if not p.get("nccl_version", "").startswith("2."): bad["nccl_version"] = p.get("nccl_version")
for k, v in bad.items(): print("FAIL params: %s = %r" % (k, v))
sys.exit(1 if bad else 0)
PY
# NCCL before 2.28/2.18 (no ncclAlltoAll, no ncclCommSplit): grouped send/recv, same results.
FABDIAG_NCCL_LIB=$nccl_old expect 0 alltoall-old 4 bench alltoall --backend nccl "${sweep[@]}" &&
  verify alltoall-old 4 zero &&
  { grep -q '"nccl_split": *"ncclCommInitRank"' "$tmp/alltoall-old.out" || { echo "FAIL alltoall-old: nccl_split"; fail=1; }; }

# The data check catches a corrupted result: #wrong > 0, exit 1 (critical finding).
FAKE_NCCL_CORRUPT_RANK=1 expect 1 corrupt 2 bench all_reduce --backend nccl "${sweep[@]}" && verify corrupt 2 some
FAKE_NCCL_CORRUPT_RANK=3 expect 1 corrupt-a2a 4 bench alltoall --backend nccl "${sweep[@]}" && verify corrupt-a2a 4 some

# Injected failures.
FAKE_NCCL_TIMEOUT_S=5 FAKE_NCCL_INIT_FAIL_RANK=1 expect 3 init-fail 2 bench all_reduce --backend nccl -q &&
  stderr_has init-fail "NCCL backend cannot run here: rank 1 ($host) libnccl ($nccl): ncclCommInitRank(2 ranks, rank 1, GPU 1) failed" &&
  stderr_has init-fail "FAKE_NCCL_INIT_FAIL_RANK"
FAKE_CUDA_DEVICES=1 expect 3 too-few 2 bench all_reduce --backend nccl -q &&
  stderr_has too-few "rank 1 ($host) has local rank 1 and needs GPU 1, but 1 are visible"
FAKE_NCCL_ASYNC_ERROR_RANK=0 expect 4 async-rank0 2 bench all_reduce --backend nccl "${sweep[@]}" &&
  stderr_has async-rank0 "rank 0 ($host) GPU 0: NCCL asynchronous error: remote process exited or there was a network error" &&
  { python3 -c "import json,sys; d=json.load(open('$tmp/async-rank0.out')); sys.exit(0 if d['partial'] else 1)" ||
    { echo "FAIL async-rank0: not a partial result"; fail=1; }; }
FAKE_NCCL_ASYNC_ERROR_RANK=1 expect 4 async-rank1 2 bench all_reduce --backend nccl "${sweep[@]}" &&
  stderr_has async-rank1 "fabdiag: error: rank 1 ($host) GPU 1: NCCL asynchronous error"
start=$(date +%s)
FAKE_NCCL_TIMEOUT_S=100 FAKE_NCCL_HANG_RANK=1 expect 4 hang 2 bench all_reduce --backend nccl "${sweep[@]}" --timeout 3 &&
  python3 -c "
import json,sys
d=json.load(open('$tmp/hang.out'))
sys.exit(0 if d['partial'] and d['data']['backend']=='nccl' and 'deadline' in d['cut']['reason'] else 1)" ||
  { echo "FAIL hang: not a partial nccl result cut by the deadline"; head -c 600 "$tmp/hang.out"; fail=1; }
[ $(( $(date +%s) - start )) -lt 60 ] || { echo "FAIL hang: --timeout 3 took $(( $(date +%s) - start )) s"; fail=1; }
# Usage: under mpirun each rank drives one GPU.
expect 2 g-under-mpi 2 bench all_reduce --backend nccl -g 2 && stderr_has g-under-mpi "each rank drives one GPU"

# pairwise over 4 ranks on their GPUs: a 4x4 matrix, every off-diagonal cell measured; on the
# world communicator, and with one communicator per pair (ncclCommSplit; ncclCommInitRank on the
# old library). Exit 1 (a pair flagged) is allowed: 4 ranks on a shared 2-core machine are noisy.
check_pairwise() {
  local name=$1 comm=$2
  shift 2
  mpi 4 pairwise --backend nccl --pair-comm "$comm" --size 64K -n 2 --format json -q >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
    echo "FAIL $name: exit $rc"; tail -5 "$tmp/$name.err"; fail=1; return
  fi
  python3 - "$tmp/$name.out" "$name" "$comm" <<'PY' || fail=1
import json, math, sys
doc = json.load(open(sys.argv[1]))
m, p = doc["data"]["matrix_bytes_per_s"], doc["params"]
errors = []
if len(m) != 4 or any(len(r) != 4 for r in m): errors.append("matrix shape %r" % m)
for i in range(len(m)):
    for j in range(len(m)):
        v = m[i][j]
        if i == j and v is not None: errors.append("diagonal %r" % v)
        if i != j and not (isinstance(v, (int, float)) and v > 0 and math.isfinite(v)): errors.append("cell %d,%d = %r" % (i, j, v))
if p.get("backend") != "nccl" or p.get("launch") != "mpi, one rank per GPU" or p.get("pair_comm") != sys.argv[3]:
    errors.append("params %r" % p)
for e in errors: print("FAIL %s: %s" % (sys.argv[2], e))
sys.exit(1 if errors else 0)
PY
}
check_pairwise pairwise world
check_pairwise pairwise-split split
FABDIAG_NCCL_LIB=$nccl_old check_pairwise pairwise-split-old split

# triage on the GPUs: the sweeps ran through NCCL on 4 ranks, the pair screen measured pairs.
mpi 4 triage --backend nccl --pair-size 64K --pair-iters 2 --sweep-min 1K --sweep-max 4K --bench-iters 2 \
  --timeout 100 --format json -q >"$tmp/triage.out" 2>"$tmp/triage.err"
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "$rc" != 4 ]; then
  echo "FAIL triage: exit $rc"; tail -5 "$tmp/triage.err"; fail=1
else
  python3 - "$tmp/triage.out" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
p, text = doc["params"], json.dumps(doc["data"])
errors = []
if p.get("backend") != "nccl" or p.get("launch") != "mpi, one rank per GPU": errors.append("params %r" % p)
if '"backend": "nccl"' not in text: errors.append("no sweep with backend nccl in data")
if '"backend": "mpi"' in text: errors.append("a sweep with backend mpi in data")
for e in errors: print("FAIL triage: " + e)
sys.exit(1 if errors else 0)
PY
fi

[ $fail -eq 0 ] && echo "ok: nccl backend, one rank per GPU under mpirun, against the fakes"
exit $fail
