#!/usr/bin/env bash
# Benchmark (not a test) of a full counter snapshot of a fixture node with 8 RDMA NICs against
# ARCHITECTURE.md's targets (< 20 ms per snapshot, < 64 MiB resident). Builds the
# fabdiag_bench_counters target in an optimized tree (BUILD_DIR, default build-bench; the project's
# default RelWithDebInfo, -O2, without -Werror: GCC 12 -O3 warns falsely in core/) and runs it;
# arguments go to the program (--nics N --channels C --iterations N --keep DIR).
# Exit: 0 both targets met, 1 a target missed, else the build's or program's failure.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build-bench}
jobs=${JOBS:-2}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFABDIAG_BUILD_TESTS=OFF \
    -DFABDIAG_WERROR=OFF >/dev/null
fi
if ! log=$(ninja -C "$build" -j"$jobs" fabdiag_bench_counters 2>&1); then
  echo "$log" >&2
  echo "bench-counters: build failed in $build" >&2
  exit 70
fi
exec "$build/fabdiag_bench_counters" "$@"
