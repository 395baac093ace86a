#!/usr/bin/env bash
# Benchmark (not a test) of what `fabdiag import FORMAT FILE` costs against its input size, for
# every reader: synthetic inputs of 10 MB, 100 MB and 1 GB (scripts/bench_inputs.py: the
# fixtures' records repeated as many snapshots, many hosts' pastes or long logs; ethtool -S of 16
# NICs, nccl-tests sweeps and a syslog of noise generated) are written into a temporary directory
# (deleted as it goes), imported under /usr/bin/time -v, and a table prints format, input MB,
# peak RSS MB, RSS/input, wall s, output MB and the exit code. A streaming reader's peak RSS stays
# flat (docs/ARCHITECTURE.md#data-model; the measured table is in docs/ARCHITECTURE.md#import-memory).
# mpigraph is capped at 80 MB: one N x N matrix of at most 2048 ranks, which its reader holds.
#
#   scripts/bench-import-memory.sh [--bin FABDIAG] [--sizes "10 100 1000"] [--formats "F1 F2 ..."]
#                                  [--tmp DIR] [--output-format json|table] [--timeout S] [--mem-limit MB]
#
# --bin: the fabdiag binary (default: $FABDIAG_BUILD_DIR/fabdiag or ./build/fabdiag).
# --formats: default every format (`python3 scripts/bench_inputs.py --list`).
# --timeout (default 600 s) and --mem-limit (address space, default 8192 MB) stop a reader that
# does not stream before it takes the machine: rc 124 (timeout) or a failed allocation.
# Needs GNU time (/usr/bin/time: scripts/setup.sh installs it) and python3. The largest input
# must fit the temporary directory's free space twice over (input + margin): checked first.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${FABDIAG_BUILD_DIR:-$src/build}/fabdiag
sizes="10 100 1000"
formats=$(python3 "$src/scripts/bench_inputs.py" --list)
tmp_parent=${TMPDIR:-/tmp}
out_format=json
time_limit=600
mem_limit_mb=8192
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --tmp) tmp_parent=$2; shift 2 ;;
    --output-format) out_format=$2; shift 2 ;;
    --timeout) time_limit=$2; shift 2 ;;
    --mem-limit) mem_limit_mb=$2; shift 2 ;;
    -h|--help) sed -n 2,19p "$0"; exit 0 ;;
    *) echo "bench-import-memory: unknown argument $1" >&2; exit 2 ;;
  esac
done
. "$src/scripts/bench-common.sh"
bench_check bench-import-memory "$bin"
largest=0
for s in $sizes; do [ "$s" -gt "$largest" ] && largest=$s; done
free_mb=$(df -Pm "$tmp_parent" | awk 'NR == 2 {print $4}')
if [ "$free_mb" -lt $((largest * 2 + 200)) ]; then
  echo "bench-import-memory: $tmp_parent has $free_mb MB free; the ${largest} MB input needs $((largest * 2 + 200))" >&2
  exit 2
fi
bench_tmpdir bench-import "$tmp_parent"

# gen FORMAT MB FILE: a synthetic input of about MB megabytes (scripts/bench_inputs.py).
gen() { python3 "$src/scripts/bench_inputs.py" "$1" "$2" "$3" "$src"; }

printf 'load average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %9s %12s %10s %8s %10s %4s\n' format "input MB" "peak RSS MB" RSS/input "wall s" "output MB" rc
for fmt in $formats; do
  for mb in $sizes; do
    in="$t/$fmt-$mb.txt"
    gen "$fmt" "$mb" "$in"
    rc=0
    # A reader that does not stream is stopped at --mem-limit (address space) or --timeout.
    ( ulimit -v $((mem_limit_mb * 1024))
      exec /usr/bin/time -v -o "$t/time.txt" timeout "$time_limit" "$bin" import "$fmt" "$in" --format "$out_format" \
        -o "$t/out" ) >/dev/null 2>"$t/stderr.txt" || rc=$?
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$t/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$t/time.txt" |
           awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s}')
    in_mb=$(awk -v b="$(stat -c %s "$in")" 'BEGIN {printf "%.1f", b / 1e6}')
    out_mb=$(awk -v b="$(stat -c %s "$t/out" 2>/dev/null || echo 0)" 'BEGIN {printf "%.2f", b / 1e6}')
    awk -v f="$fmt" -v i="$in_mb" -v r="$rss_kb" -v w="$wall" -v o="$out_mb" -v c="$rc" \
      'BEGIN {printf "%-24s %9s %12.1f %10.3f %8.2f %10s %4s\n", f, i, r / 1024, (r / 1024) / i, w, o, c}'
    rm -f "$in" "$t/out"
  done
done
printf 'load average at end: %s (nproc %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
