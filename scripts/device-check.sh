#!/usr/bin/env bash
# The GPU check of issue 10 (docs/ARCHITECTURE.md#collective-backends): fabdiag's NCCL backend
# measured on a real GPU next to nccl-tests, in one short run.
#
#   scripts/device-check.sh pack [--nccl-tests-src DIR]
#       Here, on a machine with the Debian -dev packages: writes .device-check/deps.tar.gz with
#       the headers and CMake files of the build's header-only dependencies (CLI11,
#       nlohmann-json, doctest) copied from this machine, and, when DIR (a checkout of
#       github.com/NVIDIA/nccl-tests) is given, its source as .device-check/nccl-tests.tar.gz.
#       .device-check/ is ignored by git: it travels to the GPU machine as a carried path and is
#       never committed (nccl-tests' code is not part of fabdiag).
#   scripts/device-check.sh run [--nccl-tests BUILD_DIR] [--out DIR] [--max-bytes SIZE] [--dry-run]
#       On the GPU machine (nvcc, CMake, ninja, a Python with the nvidia-nccl-cu13 wheel; no
#       Debian -dev packages, maybe no MPI): finds nccl.h and libnccl.so.2 in the wheel, unpacks
#       the deps, builds fabdiag (target fabdiag-main, no tests) against a one-rank MPI stub
#       (scripts/mpi-singleton/) when no MPI compiler is installed, runs `fabdiag doctor`,
#       `fabdiag topo` (the real NVML) and `fabdiag bench --backend nccl -g 1` for all_reduce,
#       all_gather, reduce_scatter, alltoall and sendrecv over 8 B .. 1 GiB, and, with an
#       nccl-tests build (BUILD_DIR holding all_reduce_perf, or one built here from
#       .device-check/nccl-tests.tar.gz), `all_reduce_perf -g 1` on the same sizes, then prints
#       the fabdiag / nccl-tests time ratio per size. Results go to DIR (default $OUT, else
#       ./device-check-out): fabdiag-<coll>.json (fabdiag.bench/1) and .txt (--format
#       nccl-tests), nccl-tests-all_reduce.txt, ratios.txt, topo.json, doctor.txt, log.txt.
#       --dry-run prints what was found and the commands, and runs nothing.
#
# Exit codes: 0 done, 2 usage, 3 something needed is missing (named on stderr), 1 a step failed.
# With one GPU every (n-1)/n busbw factor is 0: compare the time (and algbw) columns.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pack_dir=$root/.device-check

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "device-check: $1" >&2; exit "${2:-1}"; }

# ---- pack (here) ----
pack() {
  local nccl_tests_src=""
  while [ $# -gt 0 ]; do
    case $1 in
      --nccl-tests-src) nccl_tests_src=${2:?--nccl-tests-src DIR}; shift 2 ;;
      *) die "pack: unknown argument $1" 2 ;;
    esac
  done
  local stage
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' RETURN
  mkdir -p "$stage/prefix/include" "$stage/prefix/share/cmake" "$stage/prefix/lib/cmake"
  local need
  for need in /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/doctest/doctest.h \
              /usr/share/cmake/CLI11/CLI11Config.cmake /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake \
              /usr/lib/cmake/doctest/doctestConfig.cmake; do
    [ -f "$need" ] || die "pack: $need is missing (apt-get install libcli11-dev nlohmann-json3-dev doctest-dev)" 3
  done
  cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/doctest "$stage/prefix/include/"
  cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$stage/prefix/share/cmake/"
  cp -r /usr/lib/cmake/doctest "$stage/prefix/lib/cmake/"
  {
    echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) from fabdiag $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    dpkg-query -W -f '${Package} ${Version}\n' libcli11-dev nlohmann-json3-dev doctest-dev 2>/dev/null || true
  } >"$stage/prefix/MANIFEST"
  mkdir -p "$pack_dir"
  tar -C "$stage" -czf "$pack_dir/deps.tar.gz" prefix
  if [ -n "$nccl_tests_src" ]; then
    [ -f "$nccl_tests_src/src/common.cu" ] || die "pack: $nccl_tests_src is not an nccl-tests checkout (no src/common.cu)" 2
    if git -C "$nccl_tests_src" rev-parse --git-dir >/dev/null 2>&1; then
      git -C "$nccl_tests_src" archive --format=tar.gz --prefix=nccl-tests/ HEAD >"$pack_dir/nccl-tests.tar.gz"
    else
      tar -C "$(dirname "$nccl_tests_src")" -czf "$pack_dir/nccl-tests.tar.gz" \
        --transform "s,^$(basename "$nccl_tests_src"),nccl-tests," "$(basename "$nccl_tests_src")"
    fi
  fi
  git -C "$root" check-ignore -q "$pack_dir/deps.tar.gz" ||
    echo "device-check: warning: .device-check/ is not ignored by git here; do not commit it" >&2
  ls -l "$pack_dir"
  echo "device-check: packed; on the GPU machine run: scripts/device-check.sh run (carry .device-check)"
}

# ---- run (there) ----
python_bin() { command -v python3 || command -v python || true; }

# The directory of the nvidia-nccl-cu13 wheel (nvidia/nccl with include/nccl.h, lib/libnccl.so.2).
find_nccl_wheel() {
  local py=$1 d
  [ -n "$py" ] || return 0
  "$py" - <<'PY' 2>/dev/null || true
import importlib.util, site, os, sys
dirs = []
try:
    spec = importlib.util.find_spec("nvidia.nccl")
    if spec and spec.submodule_search_locations: dirs += list(spec.submodule_search_locations)
except Exception: pass
for s in site.getsitepackages() + [site.getusersitepackages()]: dirs.append(os.path.join(s, "nvidia", "nccl"))
for d in dirs:
    if os.path.isfile(os.path.join(d, "include", "nccl.h")) and os.path.isfile(os.path.join(d, "lib", "libnccl.so.2")):
        print(d); sys.exit(0)
PY
}

find_cudart() {
  local cuda=$1 py=$2 f
  for f in "$cuda"/lib64/libcudart.so.1[0-9]* "$cuda"/lib/libcudart.so.1[0-9]* "$cuda"/targets/x86_64-linux/lib/libcudart.so.1[0-9]*; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
  [ -n "$py" ] && "$py" -c 'import site,glob,sys; [print(f) or sys.exit(0) for s in site.getsitepackages() for f in glob.glob(s+"/nvidia/cu*/lib/libcudart.so.1*")+glob.glob(s+"/nvidia/cuda_runtime/lib/libcudart.so.1*")]' 2>/dev/null | head -1
}

# step NAME CMD...: runs and logs one step; in a dry run only prints it.
step() {
  local name=$1
  shift
  echo "== $name: $*" | tee -a "$log"
  [ "$dry_run" = 1 ] && return 0
  "$@" >>"$log" 2>&1 || { echo "device-check: step '$name' failed (exit $?); see $log" >&2; tail -20 "$log" >&2; return 1; }
}

run_check() {
  local nccl_tests_build="" out=${OUT:-$root/device-check-out} max_bytes=1G
  dry_run=0
  while [ $# -gt 0 ]; do
    case $1 in
      --nccl-tests) nccl_tests_build=${2:?--nccl-tests BUILD_DIR}; shift 2 ;;
      --out) out=${2:?--out DIR}; shift 2 ;;
      --max-bytes) max_bytes=${2:?--max-bytes SIZE}; shift 2 ;;
      --dry-run) dry_run=1; shift ;;
      *) die "run: unknown argument $1" 2 ;;
    esac
  done
  mkdir -p "$out"
  log=$out/log.txt
  : >"$log"
  local work=${DEVICE_CHECK_WORK:-/tmp/fabdiag-device-check}
  local py cuda nccl_dir cudart
  py=$(python_bin)
  cuda=${CUDA_HOME:-/usr/local/cuda}
  nccl_dir=${NCCL_HOME:-$(find_nccl_wheel "$py")}
  cudart=${FABDIAG_CUDART_LIB:-$(find_cudart "$cuda" "$py")}
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    echo "python: ${py:-none}"
    echo "cuda: $cuda (nvcc: $(command -v nvcc || echo "$cuda/bin/nvcc"))"
    echo "nccl: ${nccl_dir:-not found}"
    echo "libcudart: ${cudart:-not found}"
    echo "mpi compiler: $(command -v mpicc || echo 'none: the one-rank stub scripts/mpi-singleton/ is used')"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  } | tee -a "$log"
  [ -f "$cuda/include/cuda_runtime_api.h" ] || die "no $cuda/include/cuda_runtime_api.h: set CUDA_HOME" 3
  [ -n "$nccl_dir" ] && [ -f "$nccl_dir/include/nccl.h" ] ||
    die "no nccl.h: install the nvidia-nccl-cu13 wheel or set NCCL_HOME (a dir with include/nccl.h, lib/libnccl.so.2)" 3
  [ -n "$cudart" ] || die "no libcudart.so.<major> under $cuda or the Python wheels: set FABDIAG_CUDART_LIB" 3
  [ -f "$pack_dir/deps.tar.gz" ] || [ "$dry_run" = 1 ] ||
    die "no $pack_dir/deps.tar.gz: run 'scripts/device-check.sh pack' where the -dev packages are, and carry .device-check" 3

  mkdir -p "$work"
  local cmake_env=(NCCL_HOME="$nccl_dir")
  local cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DFABDIAG_BUILD_TESTS=OFF -DFABDIAG_WERROR=OFF
                    -DCMAKE_PREFIX_PATH="$work/prefix" -DFABDIAG_CUDA_ROOT="$cuda")
  step "unpack the build's header-only dependencies" tar -C "$work" -xzf "$pack_dir/deps.tar.gz"
  if ! command -v mpicc >/dev/null; then
    step "one-rank MPI stub" mkdir -p "$work/mpi/include" "$work/mpi/lib"
    step "one-rank MPI stub" cp "$root/scripts/mpi-singleton/mpi.h" "$work/mpi/include/"
    step "one-rank MPI stub" cc -O2 -shared -fPIC -I"$root/scripts/mpi-singleton" -o "$work/mpi/lib/libmpi.so" \
      "$root/scripts/mpi-singleton/mpi.c"
    cmake_args+=(-DMPI_SKIP_COMPILER_WRAPPER=ON -DMPI_C_HEADER_DIR="$work/mpi/include" -DMPI_C_LIB_NAMES=mpi
                 -DMPI_mpi_LIBRARY="$work/mpi/lib/libmpi.so")
    cmake_env+=(PKG_CONFIG_LIBDIR=/nonexistent)  # FindMPI would take a pkg-config mpi-c's headers instead
  fi
  step "configure fabdiag" env "${cmake_env[@]}" cmake -S "$root" -B "$work/build" "${cmake_args[@]}"
  step "build fabdiag" cmake --build "$work/build" --target fabdiag-main -j "$(nproc)"
  local fabdiag=$work/build/fabdiag
  export FABDIAG_NCCL_LIB="$nccl_dir/lib/libnccl.so.2" FABDIAG_CUDART_LIB="$cudart"
  local rc=0
  step "doctor" sh -c "'$fabdiag' doctor --format table >'$out/doctor.txt' 2>&1; cat '$out/doctor.txt'" || rc=1
  step "topo (real NVML)" sh -c "'$fabdiag' topo --format json -o '$out/topo.json'; '$fabdiag' topo --format table | head -40" || rc=1
  local coll
  for coll in all_reduce all_gather reduce_scatter alltoall sendrecv; do
    step "bench $coll" "$fabdiag" bench "$coll" --backend nccl -g 1 -b 8 -e "$max_bytes" -f 2 -w 5 -n 20 \
      --format nccl-tests -o "$out/fabdiag-$coll.txt" --checkpoint "$out/fabdiag-$coll.json" || rc=1
    [ "$dry_run" = 1 ] || cat "$out/fabdiag-$coll.txt" 2>/dev/null || true
  done

  # nccl-tests: a given build, or one built here from the packed source.
  local all_reduce_perf=""
  if [ -n "$nccl_tests_build" ]; then
    all_reduce_perf=$nccl_tests_build/all_reduce_perf
    [ -x "$all_reduce_perf" ] || [ "$dry_run" = 1 ] || die "no executable $all_reduce_perf" 3
  elif [ -f "$pack_dir/nccl-tests.tar.gz" ]; then
    local home=$work/nccl-home b=$work/nccl-tests-build
    step "nccl-tests source" tar -C "$work" -xzf "$pack_dir/nccl-tests.tar.gz"
    step "nccl-tests: NCCL_HOME with lib/libnccl.so" sh -c \
      "mkdir -p '$home/lib' && ln -sfn '$nccl_dir/include' '$home/include' && ln -sf '$nccl_dir/lib/libnccl.so.2' '$home/lib/libnccl.so' && ln -sf '$nccl_dir/lib/libnccl.so.2' '$home/lib/libnccl.so.2'"
    local make_args=(BUILDDIR="$b" NCCL_HOME="$home" CUDA_HOME="$cuda" NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90")
    step "nccl-tests: os library" make -C "$work/nccl-tests/src" "${make_args[@]}" os.build
    step "nccl-tests: all_reduce_perf" make -C "$work/nccl-tests/src" -j "$(nproc)" "${make_args[@]}" "$b/all_reduce_perf"
    all_reduce_perf=$b/all_reduce_perf
  fi
  if [ -n "$all_reduce_perf" ]; then
    step "nccl-tests all_reduce_perf -g 1" sh -c "LD_LIBRARY_PATH='$nccl_dir/lib':\${LD_LIBRARY_PATH:-} '$all_reduce_perf' -g 1 -b 8 -e '$max_bytes' -f 2 -w 5 -n 20 >'$out/nccl-tests-all_reduce.txt' 2>&1; cat '$out/nccl-tests-all_reduce.txt'" || rc=1
    step "import nccl-tests" sh -c "'$fabdiag' import nccl-tests '$out/nccl-tests-all_reduce.txt' --format json >'$out/nccl-tests-all_reduce.json'" || rc=1
    [ "$dry_run" = 1 ] || ratios "$out" | tee "$out/ratios.txt" | tee -a "$log"
  else
    echo "== no nccl-tests build (--nccl-tests BUILD_DIR, or pack --nccl-tests-src DIR): no ratios" | tee -a "$log"
  fi
  echo "device-check: results in $out (exit $rc)"
  return $rc
}

# fabdiag / nccl-tests all_reduce per size: time (fabdiag: CUDA events, slowest rank; nccl-tests:
# host wall clock after a stream sync, averaged over ranks) and busbw.
ratios() {
  python3 - "$1/fabdiag-all_reduce.json" "$1/nccl-tests-all_reduce.json" <<'PY'
import json, sys
fab = json.load(open(sys.argv[1]))["data"]
nt = json.load(open(sys.argv[2]))["data"]
nt = nt["tables"][0] if "tables" in nt else nt
ref = {r["size_bytes"]: r for r in nt["results"]}
print("all_reduce -g 1: fabdiag / nccl-tests (out-of-place)")
print("%12s %12s %12s %8s %10s %10s" % ("size (B)", "fabdiag us", "nccl-tests us", "ratio", "fab GB/s", "nt GB/s"))
worst = 0.0
for r in fab["results"]:
    n = ref.get(r["size_bytes"])
    if not n or not n.get("time_s"): continue
    ratio = r["time_s"] / n["time_s"]
    if r["size_bytes"] >= 1 << 20: worst = max(worst, abs(ratio - 1))
    print("%12d %12.2f %12.2f %8.3f %10.2f %10.2f" % (r["size_bytes"], r["time_s"] * 1e6, n["time_s"] * 1e6, ratio,
          r["algbw_bytes_per_s"] / 1e9, (n.get("algbw_bytes_per_s") or 0) / 1e9))
print("largest |ratio - 1| at sizes >= 1 MiB: %.3f (target <= 0.02)" % worst)
PY
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  run) shift; run_check "$@" ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
