#!/usr/bin/env bash
# Benchmark (not a test) of what `fabdiag report` of a big pairwise result costs: synthetic
# fabdiag.pairwise/1 documents of N hosts (every directed pair measured, one slow node; N x N
# matrix, N(N-1)/2 links) are written to a temporary directory (deleted at the end) and
# reported in each format under /usr/bin/time; a table prints hosts, input MB, links, format,
# peak RSS MB, wall s, CPU s, output MB and the exit code. The links are made when they are
# visited and JSON/JUnit are written in pieces (docs/report.md#memory), so peak RSS should
# follow the matrix (8 bytes a cell), not the links or the output.
#
#   scripts/bench-report-memory.sh [--bin FABDIAG] [--hosts "300 1000 1500"] [--formats "html json junit table"] [--tmp DIR]
#
# --bin: the fabdiag binary (default: $FABDIAG_BUILD_DIR/fabdiag or ./build/fabdiag).
# Needs GNU time (/usr/bin/time: scripts/setup.sh installs it) and python3. 1500 hosts: a 34 MB
# input; the JSON report of it is about 1 GB on disk.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${FABDIAG_BUILD_DIR:-$src/build}/fabdiag
hosts="300 1000 1500"
formats="html json junit table"
tmp_parent=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --tmp) tmp_parent=$2; shift 2 ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) echo "bench-report-memory: unknown argument $1" >&2; exit 2 ;;
  esac
done
. "$src/scripts/bench-common.sh"
bench_check bench-report-memory "$bin"
bench_tmpdir bench-report "$tmp_parent"
printf '%6s %9s %9s %-6s %9s %8s %8s %10s %3s\n' hosts input_MB links format rss_MB wall_s cpu_s output_MB rc
for n in $hosts; do
  python3 - "$t/in.json" "$n" <<'PY'
import json, sys
n = int(sys.argv[2])
hosts = ["node%04d" % i for i in range(n)]
m = [[None if i == j else (20e9 if 7 in (i, j) else 45e9 + (i * 7 + j) % 100 * 1e7) for j in range(n)] for i in range(n)]
json.dump({"schema": "fabdiag.pairwise/1", "tool_version": "bench", "hosts": hosts, "started_at": "2026-01-01T00:00:00Z",
           "duration_s": 1.0, "params": {}, "findings": [], "errors": [],
           "data": {"hosts": hosts, "matrix_bytes_per_s": m, "node_median_bytes_per_s": {h: 45e9 for h in hosts},
                    "fleet_median_bytes_per_s": 45e9,
                    "outlier_nodes": [{"host": "node0007", "ratio": 0.44, "partners": n - 1}], "outlier_links": [],
                    "inconclusive": [], "pair_notes": [], "rounds": [], "iters": 0, "size_bytes": 0}}, open(sys.argv[1], "w"))
PY
  in_mb=$(du -m --apparent-size "$t/in.json" | cut -f1)
  for f in $formats; do
    rc=0
    /usr/bin/time -f '%M %e %U %S' -o "$t/time" "$bin" report "$t/in.json" --format "$f" -o "$t/out" 2>/dev/null || rc=$?
    # GNU time puts "Command exited with non-zero status N" first: the figures are the last line.
    read -r rss_kb wall user sys < <(tail -n 1 "$t/time")
    out_mb=$(du -m --apparent-size "$t/out" 2>/dev/null | cut -f1 || echo 0)
    awk -v n="$n" -v in_mb="$in_mb" -v f="$f" -v rss="$rss_kb" -v wall="$wall" -v cpu="$user $sys" -v out="$out_mb" -v rc="$rc" \
      'BEGIN { split(cpu, c, " "); printf "%6s %9s %9d %-6s %9.1f %8s %8.2f %10s %3s\n", n, in_mb, n * (n - 1) / 2, f, rss / 1024, wall, c[1] + c[2], out, rc }' 
    rm -f "$t/out"
  done
done
