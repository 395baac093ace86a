#!/usr/bin/env bash
# Benchmark (not a test) of what `fabdiag import FORMAT FILE` costs against its input size:
# synthetic inputs of 10 MB, 100 MB and 1 GB (ethtool -S of 16 NICs in many snapshots,
# nccl-tests output of many sweeps, a syslog with carrier losses among noise) are generated into
# a temporary directory (deleted at the end), imported under /usr/bin/time -v, and a table
# prints format, input MB, peak RSS MB, RSS/input, wall s, output MB and the exit code.
# The readers stream (docs/ARCHITECTURE.md#data-model), so peak RSS should stay flat.
#
#   scripts/bench-import-memory.sh [--bin FABDIAG] [--sizes "10 100 1000"] [--formats "ethtool-s nccl-tests syslog"]
#                                  [--tmp DIR] [--output-format json|table]
#
# --bin: the fabdiag binary (default: $FABDIAG_BUILD_DIR/fabdiag or ./build/fabdiag).
# Needs GNU time (/usr/bin/time: scripts/setup.sh installs it) and python3. The largest input
# must fit the temporary directory's free space twice over (input + margin): checked first.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${FABDIAG_BUILD_DIR:-$src/build}/fabdiag
sizes="10 100 1000"
formats="ethtool-s nccl-tests syslog"
tmp_parent=${TMPDIR:-/tmp}
out_format=json
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --tmp) tmp_parent=$2; shift 2 ;;
    --output-format) out_format=$2; shift 2 ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) echo "bench-import-memory: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "bench-import-memory: no fabdiag at $bin (build it, or give --bin)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-import-memory: /usr/bin/time missing (run scripts/setup.sh)" >&2; exit 2; }
largest=0
for s in $sizes; do [ "$s" -gt "$largest" ] && largest=$s; done
free_mb=$(df -Pm "$tmp_parent" | awk 'NR == 2 {print $4}')
if [ "$free_mb" -lt $((largest * 2 + 200)) ]; then
  echo "bench-import-memory: $tmp_parent has $free_mb MB free; the ${largest} MB input needs $((largest * 2 + 200))" >&2
  exit 2
fi
t=$(mktemp -d "$tmp_parent/fabdiag-bench-import.XXXXXX")
trap 'rm -rf "$t"' EXIT

# gen FORMAT MB FILE: a synthetic input of about MB megabytes.
gen() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
fmt, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
limit = mb * 1000 * 1000
names = [f"rx_queue_{q}_{k}" for q in range(16) for k in ("packets", "bytes", "drops")] + \
        ["rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_crc_errors_phy", "rx_symbol_err_phy",
         "rx_discards_phy", "tx_pause_ctrl_phy", "rx_pause_ctrl_phy", "link_down_events_phy"] + \
        [f"rx_prio{p}_{k}" for p in range(8) for k in ("bytes", "packets", "pause")]
def ethtool_s(k):
    out = []
    for nic in range(16):
        out.append(f"### ethtool -S ens{nic}f0np0 (snapshot {k})\nNIC statistics:\n")
        out.extend(f"     {n}: {(k + 1) * (i + 1) * 1000 + nic}\n" for i, n in enumerate(names))
    return "".join(out)
sizes = [2 ** i for i in range(3, 33, 1)]
def nccl(k):
    out = [f"### all_reduce_perf\n# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) "
           f"warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"]
    out.extend(f"#  Rank {r:2d} Group  0 Pid {1000 + r:6d} on node{r // 8:02d} device  {r % 8} [0x{r:02x}] NVIDIA H100 80GB HBM3\n"
               for r in range(16))
    out.append("#\n#                                                              out-of-place                       in-place\n"
               "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
               "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n")
    for s in sizes:
        t = 20 + s / 4e5 + (k % 7)
        bw = s / t / 1e3
        out.append(f"{s:12d}  {s // 4:12d}     float     sum      -1  {t:7.1f}  {bw:6.2f}  {bw * 1.875:6.2f}      0  "
                   f"{t:7.1f}  {bw:6.2f}  {bw * 1.875:6.2f}      0\n")
    out.append("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.456\n#\n")
    return "".join(out)
def syslog(k):
    out = []
    for i in range(100):
        sec = (k * 100 + i) % 86400
        ts = f"Jan {1 + (k * 100 + i) // 86400 % 28:2d} {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"
        if i == 0 and k % 50 == 0:
            out.append(f"{ts} node07 kernel: mlx5_core 0000:17:00.{k % 4} ens{k % 16}f0np0: Link down\n")
        else:
            out.append(f"{ts} node07 systemd[1]: Started session {k * 100 + i} of user slurm (noise line {i}).\n")
    return "".join(out)
make = {"ethtool-s": ethtool_s, "nccl-tests": nccl, "syslog": syslog}[fmt]
written, k = 0, 0
with open(path, "w") as f:
    while written < limit:
        block = make(k)
        f.write(block)
        written += len(block)
        k += 1
PY
}

printf 'load average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %9s %12s %10s %8s %10s %4s\n' format "input MB" "peak RSS MB" RSS/input "wall s" "output MB" rc
for fmt in $formats; do
  for mb in $sizes; do
    in="$t/$fmt-$mb.txt"
    gen "$fmt" "$mb" "$in"
    rc=0
    /usr/bin/time -v -o "$t/time.txt" "$bin" import "$fmt" "$in" --format "$out_format" -o "$t/out" \
      2>"$t/stderr.txt" || rc=$?
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$t/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$t/time.txt" |
           awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s}')
    in_mb=$(awk -v b="$(stat -c %s "$in")" 'BEGIN {printf "%.1f", b / 1e6}')
    out_mb=$(awk -v b="$(stat -c %s "$t/out" 2>/dev/null || echo 0)" 'BEGIN {printf "%.2f", b / 1e6}')
    awk -v f="$fmt" -v i="$in_mb" -v r="$rss_kb" -v w="$wall" -v o="$out_mb" -v c="$rc" \
      'BEGIN {printf "%-12s %9s %12.1f %10.3f %8.2f %10s %4s\n", f, i, r / 1024, (r / 1024) / i, w, o, c}'
    rm -f "$in" "$t/out"
  done
done
printf 'load average at end: %s (nproc %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
