#!/usr/bin/env bash
# `fabdiag import` / `counters --from` on inputs that are not the named format: exit 2 with a
# message naming the file:line and what the text is; a cut nccl-tests section is exit 4 with
# the section under errors[]; --max-findings summarises repeated tables.
#   tests/cli/import_refusals_test.sh FABDIAG
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
f=$src/tests/fixtures
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

# expect RC PATTERN ARGS...: the exit code, and an extended regex stderr must match.
expect() {
  local rc=$1 pattern=$2; shift 2
  "$bin" "$@" >"$t/out" 2>"$t/err" </dev/null
  local got=$?
  if [ "$got" != "$rc" ] || ! grep -aEq -- "$pattern" "$t/err"; then
    echo "FAIL: fabdiag $* -> exit $got (expected $rc), stderr: $(head -c 400 "$t/err")"
    echo "      wanted /$pattern/"
    fail=$((fail + 1))
  fi
}

ibstat=$f/cases/013-ibstat-cx7-two-ports-down.input.txt
fec=$f/cases/036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks.input.txt
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected \`ethtool -S\` output, but this is ibstat output: \"CA 'mlx5_0'\"" \
  import ethtool-s "$ibstat"
expect 2 "cannot tell which tool wrote this: it looks like ibstat output, not counters \(line 1" counters --from "$ibstat"
expect 2 "it looks like ibv_devinfo output" counters --from "$f/ibv_devinfo/verbose-roce.txt"
expect 2 "it looks like binary data" counters --from "$f/import/binary-junk.bin"
expect 2 "036-ethtool-show-fec[^:]*:2: expected \`ethtool -S\` output, but this is \`ethtool --show-fec\` output" \
  import ethtool-s "$fec"
expect 2 "binary-junk.bin:1: expected syslog, journal or dmesg lines.*NUL bytes" import syslog "$f/import/binary-junk.bin"
expect 2 "verbose-roce.txt:1: expected ibstat output, but this is ibv_devinfo output" import ibstat "$f/ibv_devinfo/verbose-roce.txt"
# The GPU readers: another tool's output and binary junk are refused, naming the file:line.
expect 2 "013-ibstat[^:]*:1: expected \`nvidia-smi nvlink\` output, but this is ibstat output" import nvidia-smi-nvlink "$ibstat"
expect 2 "013-ibstat[^:]*:1: expected dcgmi output, but this is ibstat output" import dcgmi "$ibstat"
expect 2 "013-ibstat[^:]*:1: expected \`nvidia-smi -q\` output, but this is ibstat output" import nvidia-smi-q "$ibstat"
expect 2 "013-ibstat[^:]*:1: expected a kernel log" import xid "$ibstat"
expect 2 "binary-junk.bin:1: expected a kernel log.*NUL bytes" import xid "$f/import/binary-junk.bin"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected iblinkinfo output, but this is ibstat output" \
  import iblinkinfo "$ibstat"
expect 2 "binary-junk.bin:1: expected iblinkinfo output .*found none" import iblinkinfo "$f/import/binary-junk.bin"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected SONiC \`show pfc counters\` output, but this is ibstat output" \
  import sonic-pfc-counters "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected SONiC \`show pfcwd stats\` output, but this is ibstat output" \
  import sonic-pfcwd-stats "$ibstat"
expect 2 "056-sonic-pfc-counters[^:]*:[0-9]+: expected SONiC \`show pfcwd stats\` output, but this is SONiC \`show pfc counters\` output" \
  import sonic-pfcwd-stats "$f/cases/056-sonic-pfc-counters-ethernet6-rx-pfc3-pfc4-pause-storm.input.txt"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected lldpctl output, but this is ibstat output" \
  import lldpctl "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected perftest output, but this is ibstat output" \
  import perftest "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected a list of pairs .*, but this is ibstat output" \
  import pairs "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected ibdev2netdev output, but this is ibstat output" \
  import ibdev2netdev "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected show_gids output, but this is ibstat output" \
  import show-gids "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected \`rdma link show\` output, but this is ibstat output" \
  import rdma-link "$ibstat"
expect 2 "013-ibstat-cx7-two-ports-down.input.txt:1: expected ibnetdiscover output, but this is ibstat output" \
  import ibnetdiscover "$ibstat"
# rdma link show and rdma statistic show both start with "link mlx5_0/1": neither reads the other.
expect 2 "roce-one-disabled.txt:1: expected \`rdma statistic show\` output, but this is \`rdma link show\` output" \
  import rdma-statistic "$f/rdma-link/roce-one-disabled.txt"

# A cut section: exit 4, the section under errors[] (--line-rate 10: the figures of case 001 are
# fine for a 10 Gb/s link, so no finding's exit 1 comes before the gap's 4).
"$bin" import nccl-tests "$f/nccl-tests/cut-after-section-header.txt" --line-rate 10 --format json >"$t/cut.json" 2>/dev/null
rc=$?
if [ "$rc" != 4 ] || ! grep -q 'holds no result table: NOT READ' "$t/cut.json" ||
   ! grep -q 'cut-after-section-header.txt:10' "$t/cut.json"; then
  echo "FAIL: import nccl-tests of a cut section: exit $rc, errors: $(grep -o '"errors".*' "$t/cut.json" | head -c 300)"
  fail=$((fail + 1))
fi

# An ibstat paste cut after a port's State line: exit 4, the port's missing lines under errors[],
# and check does not call its state, rate or RoCE setup good.
printf "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n" >"$t/cut-ibstat.txt"
"$bin" import ibstat "$t/cut-ibstat.txt" --format json >"$t/cut-ibstat.json" 2>/dev/null
rc=$?
if [ "$rc" != 4 ] || ! grep -q 'cut-ibstat.txt line 4: CA .mlx5_0. port 1' "$t/cut-ibstat.json" ||
   ! grep -q 'no \\"Physical state\\", \\"Rate\\" or \\"Link layer\\" line' "$t/cut-ibstat.json"; then
  echo "FAIL: import ibstat of a cut port block: exit $rc, $(grep -o '"errors".*' "$t/cut-ibstat.json" | head -c 300)"
  fail=$((fail + 1))
fi
"$bin" check --from "$t/cut-ibstat.txt" --format json >"$t/cut-check.json" 2>/dev/null
python3 - "$t/cut-check.json" <<'PY' || fail=$((fail + 1))
import json, sys
d = json.load(open(sys.argv[1]))
st = {c["name"]: c["status"] for c in d["data"]["checks"]}
assert st["port_state"] == st["port_rate"] == st["roce_mtu"] == "not checked", st
assert any("Physical state" in e["message"] for e in d["errors"]), d["errors"]
PY

# The format-less `import FILE` takes --line-rate too and reads the nccl-tests file with it:
# the same exit 4 (no busbw finding at 10 Gb/s), params.line_rate_gbit_per_s = 10.
"$bin" import "$f/nccl-tests/cut-after-section-header.txt" --line-rate 10 --format json >"$t/any.json" 2>/dev/null
rc=$?
if [ "$rc" != 4 ] || ! grep -q '"line_rate_gbit_per_s": 10' "$t/any.json"; then
  echo "FAIL: import FILE --line-rate 10: exit $rc, params: $(grep -o '"params".*' "$t/any.json" | head -c 300)"
  fail=$((fail + 1))
fi
expect 2 "--line-rate" import "$f/nccl-tests/cut-after-section-header.txt" --line-rate 0

# --max-findings 1: case 001's two tables -> one listed, one summarised.
"$bin" import nccl-tests "$f/cases/001-nccltests-allreduce-alltoall-8node-ib.input.txt" --max-findings 1 \
  --format json >"$t/one.json" 2>/dev/null
python3 - "$t/one.json" <<'PY' || fail=$((fail + 1))
import json, sys
d = json.load(open(sys.argv[1]))["data"]
assert len(d["tables"]) == 1, d.keys()
n = d["tables_not_listed"]
assert n["tables"] == 1 and n["sizes"][0]["collective"] == "alltoall" and n["sizes"][0]["runs"] == 1, n
PY

# ethtool-fec reads case 036: the FEC counters on eth0, the mode as a fact.
"$bin" import ethtool-fec "$fec" --format json >"$t/fec.json" 2>/dev/null
python3 - "$t/fec.json" <<'PY' || fail=$((fail + 1))
import json, sys
d = json.load(open(sys.argv[1]))["data"]
c = {x["name"]: x["value"] for x in d["counters"] if x["device"] == "eth0"}
assert c["fec-uncorrectable_blocks"] == 145 and c["fec-uncorrectable_blocks_lane0"] == 128, c
assert d["imports"][0]["facts"]["fec"]["eth0"]["active"] == "None", d["imports"]
PY

# One error, one line: a file name holding a newline is written \x0a on stderr, never split.
nl_name="$t/bad"$'\n'"name.txt"
expect 2 'bad\\x0aname\.txt' import nvidia-smi-q "$nl_name"
[ "$(wc -l <"$t/err")" = 1 ] || { echo "FAIL: an error about a file name with a newline is $(wc -l <"$t/err") lines: $(cat "$t/err")"; fail=$((fail + 1)); }

# An input that never ends (/dev/zero) is refused by name at once, by every reader (the line
# readers and the whole-file ones: report, accept --spec), not read forever.
for cmd in "import nvidia-smi-q /dev/zero" "import /dev/zero" "report /dev/zero"; do
  timeout 20 "$bin" $cmd >"$t/out" 2>"$t/err" </dev/null; rc=$?
  [ $rc = 2 ] && grep -qE "/dev/zero: (is a character device, not a file: it may never end|not a file, a directory or a FIFO \(a device)" "$t/err" ||
    { echo "FAIL: fabdiag $cmd -> exit $rc: $(head -c 300 "$t/err")"; fail=$((fail + 1)); }
done

# The size options' help lists every suffix parse_size_bytes accepts (K/M/G/T), as its error does.
"$bin" bench --help >"$t/out" 2>&1
grep -qF "binary suffix K/M/G/T (1K = 1024; KB, KiB too" "$t/out" || { echo "FAIL: bench --help omits T"; fail=$((fail + 1)); }
expect 2 'K, M, G or T' bench all_reduce -b 4Q

[ "$fail" -eq 0 ] && echo "import refusals: all passed"
[ "$fail" -eq 0 ]
