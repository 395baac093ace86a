#!/usr/bin/env bash
# `fabdiag import FILE` with no format: every real case input in tests/fixtures/cases is
# detected as the tool that printed it (params.detected.format), and read (a result schema,
# not an error); a file of no tool is refused with exit 2 and named, never misread.
#   tests/cli/import_detect_test.sh FABDIAG
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
cases=$src/tests/fixtures/cases
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

# detected FILE LABEL FORMAT SCHEMA: `import FILE` takes FILE for FORMAT and reads it into SCHEMA.
detected() {
  "$bin" import --format json -q "$1" >"$t/out" 2>"$t/err"
  local got
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["params"].get("detected", {}).get("format"), d["schema"])' "$t/out" 2>/dev/null)
  if [ "$got" != "$3 $4" ]; then
    echo "FAIL: $2: want '$3 $4', got '$got' ($(head -c 200 "$t/err"))"; fail=1
  fi
}

# expect CASE_ID FORMAT SCHEMA
expect() {
  local f
  f=$(ls "$cases/$1"-*.input.txt 2>/dev/null | head -n1)
  if [ -z "$f" ]; then echo "FAIL: case $1: no fixture"; fail=1; return; fi
  detected "$f" "case $1" "$2" "$3"
}

expect 001 nccl-tests fabdiag.bench/1
expect 003 nccl-log fabdiag.nccllog/1
expect 005 nccl-log fabdiag.nccllog/1
expect 006 nccl-log fabdiag.nccllog/1
expect 008 lspci fabdiag.check/1
expect 011 nvidia-smi-topo fabdiag.topo/1
expect 013 ibstat fabdiag.check/1
expect 015 ibstatus fabdiag.check/1
expect 017 perfquery fabdiag.counters/1
expect 018 ibqueryerrors fabdiag.counters/1
expect 019 ethtool-s fabdiag.counters/1     # sysfs path:value lines: the counters reader
expect 021 lspci fabdiag.check/1
expect 022 ethtool-s fabdiag.counters/1
expect 023 ethtool-m fabdiag.counters/1
expect 025 rdma-statistic fabdiag.counters/1
expect 031 ethtool-m fabdiag.counters/1
expect 036 ethtool-fec fabdiag.counters/1
expect 037 nvidia-smi-nvlink fabdiag.gpulinks/1
expect 038 dcgmi fabdiag.dcgmi/1
expect 043 nccl-tests fabdiag.bench/1
expect 044 nccl-tests fabdiag.bench/1
expect 046 nccl-log fabdiag.nccllog/1
expect 028 pairs fabdiag.pairwise/1     # most lines "hostA,hostB  GB/s": the pairs list
expect 047 nccl-ras fabdiag.ncclras/1
expect 050 nccl-inspector fabdiag.ncclinspector/1
expect 067 pytorch-watchdog fabdiag.torchwatchdog/1
expect 052 iblinkinfo fabdiag.iblinks/1
expect 056 sonic-pfc-counters fabdiag.pfc/1
# The network/fabric/host pastes of cases w201-w220: detected by a marker or their shape.
expect w201 sonic-pfcwd-stats fabdiag.pfcwd/1
expect w219 sonic-pfcwd-stats fabdiag.pfcwd/1
expect w206 ibqueryerrors fabdiag.counters/1
expect w212 ethtool-s fabdiag.counters/1
expect w213 ethtool-s fabdiag.counters/1
expect w220 ethtool-s fabdiag.counters/1
expect w215 lspci fabdiag.check/1
expect w218 ethtool-m fabdiag.counters/1
expect 061 lldpctl fabdiag.lldp/1
expect 065 perftest fabdiag.perftest/1
expect 070 xid fabdiag.xid/1
# The w1NN real pastes (SOURCES-w1.md): tags, labels, line numbers and redactions before the
# lines, outputs cut above their headers, nccl-tests before 2020.
for c in w101:nccl-log:nccllog w102:nccl-log:nccllog w103:nccl-log:nccllog w104:nccl-log:nccllog \
         w105:nccl-log:nccllog w106:nccl-log:nccllog w107:nccl-log:nccllog w108:nccl-log:nccllog \
         w109:nccl-log:nccllog w110:nccl-log:nccllog w111:nccl-log:nccllog \
         w112:pytorch-watchdog:torchwatchdog w113:pytorch-watchdog:torchwatchdog \
         w114:pytorch-watchdog:torchwatchdog w116:pytorch-watchdog:torchwatchdog \
         w117:nccl-ras:ncclras w119:nccl-tests:bench w120:nccl-tests:bench w121:nccl-tests:bench \
         w122:dcgmi:dcgmi w123:dcgmi:dcgmi w124:nvidia-smi-nvlink:gpulinks w125:xid:xid w126:xid:xid \
         w127:xid:xid w128:nvidia-smi-q:gpuquery; do
  IFS=: read -r id fmt schema <<<"$c"
  expect "$id" "$fmt" "fabdiag.$schema/1"
done

# A file holding two logs is read by both readers, each a part: a RAS report with a watchdog's
# lines after it, a watchdog log with NCCL INFO lines.
# expect_parts CASE_ID "FORMAT FORMAT"
expect_parts() {
  local f got
  f=$(ls "$cases/$1"-*.input.txt 2>/dev/null | head -n1)
  "$bin" import --format json -q "$f" >"$t/out" 2>"$t/err"
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted(p["format"] for p in d["params"]["files"])), d["schema"])' "$t/out" 2>/dev/null)
  if [ "$got" != "$2 fabdiag.import/1" ]; then
    echo "FAIL: case $1: want parts '$2', got '$got' ($(head -c 200 "$t/err"))"; fail=1
  fi
}
expect_parts w118 "nccl-ras pytorch-watchdog"
expect_parts w115 "nccl-log pytorch-watchdog"

# Host RDMA port outputs (tests/fixtures/<format>/): detected by their own shapes, never as
# another tool's (rdma link show is not rdma statistic show).
# expect_file FIXTURE FORMAT SCHEMA
expect_file() { detected "$src/tests/fixtures/$1" "$1" "$2" "$3"; }
expect_file ibdev2netdev/v-dgx-one-down.txt ibdev2netdev fabdiag.ibdev2netdev/1
expect_file ibdev2netdev/pdsh-three-hosts.txt ibdev2netdev fabdiag.ibdev2netdev/1
expect_file show-gids/roce-host-mixed.txt show-gids fabdiag.gids/1
expect_file show-gids/grep-v2-cut.txt show-gids fabdiag.gids/1
expect_file rdma-link/roce-one-disabled.txt rdma-link fabdiag.rdmalinks/1
expect_file rdma-link/ib-json.json rdma-link fabdiag.rdmalinks/1
expect_file rdma-link/pdsh-ib-polling.txt rdma-link fabdiag.rdmalinks/1
expect_file ibnetdiscover/two-leaves-one-spine.txt ibnetdiscover fabdiag.ibfabric/1
expect_file ibnetdiscover/ports-two-leaves.txt ibnetdiscover fabdiag.ibfabric/1
# Switch-side counters and LLDP keyvalue: SONiC portstat tables and detailed blocks, NVUE text and JSON.
expect_file sonic-interface-counters/std-three-ports.txt sonic-interface-counters fabdiag.switchports/1
expect_file sonic-interface-counters/detailed-ethernet4.txt sonic-interface-counters fabdiag.switchports/1
expect_file sonic-interface-counters/pdsh-errors-cut.txt sonic-interface-counters fabdiag.switchports/1
expect_file nvue-interface/swp1-counters.txt nvue-interface fabdiag.nvue/1
expect_file nvue-interface/view-counters.txt nvue-interface fabdiag.nvue/1
expect_file nvue-interface/phy-detail-json-bad-lane.json nvue-interface fabdiag.nvue/1
expect_file lldpctl/keyvalue-pdsh-cut.txt lldpctl fabdiag.lldp/1
# nvidia-smi -q: the full query, `-i 0` after a shell prompt, a pdsh + grep -A fragment.
expect_file gpu/nvsmi-q-hgx-h100-8gpu.txt nvidia-smi-q fabdiag.gpuquery/1
expect_file gpu/nvsmi-q-v100-i0-retired-pending.txt nvidia-smi-q fabdiag.gpuquery/1
expect_file gpu/nvsmi-q-grep-clocks-two-hosts.txt nvidia-smi-q fabdiag.gpuquery/1
# NCCL RAS JSON reports (pretty, cut) and monitor events (text, JSON): nccl-ras; nccl-tests -J is not.
expect_file nccl_ras/json-nccl-docs-sample-missing-rank.json nccl-ras fabdiag.ncclras/1
expect_file nccl_ras/json-cut-in-second-comm.json nccl-ras fabdiag.ncclras/1
expect_file nccl_ras/monitor-peer-dead.txt nccl-ras fabdiag.ncclras/1
expect_file nccl_ras/monitor-json-cut.json nccl-ras fabdiag.ncclras/1

# Not a tool's text: exit 2, the file named with the line seen, nothing on stdout.
printf 'Thermal zone report\nhello world\n' >"$t/unknown.txt"
"$bin" import "$t/unknown.txt" >"$t/out" 2>"$t/err"
rc=$?
if [ $rc -ne 2 ] || [ -s "$t/out" ] || ! grep -q "unknown.txt: not the output of a tool fabdiag reads (line 1" "$t/err"; then
  echo "FAIL: unknown text: rc=$rc, stderr: $(cat "$t/err")"; fail=1
fi
# Binary junk: exit 2.
head -c 2000 /dev/urandom | tr -d '\n' | sed 's/./&\x00/g' >"$t/junk.bin"
"$bin" import "$t/junk.bin" >/dev/null 2>"$t/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "binary data" "$t/err"; then echo "FAIL: binary: rc=$rc $(cat "$t/err")"; fail=1; fi
# A pile with one unknown file: the rest is read (exit 1: ibstat's ports down), the file reported.
mkdir "$t/pile"
cp "$cases"/013-*.input.txt "$cases"/017-*.input.txt "$t/unknown.txt" "$t/pile/"
"$bin" import --format json "$t/pile" >"$t/out" 2>"$t/err"
rc=$?
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["schema"], sorted(p["schema"] for p in d["data"]["parts"]), len([e for e in d["errors"] if "unknown.txt" in e["source"]]))' "$t/out")
if [ $rc -ne 1 ] || [ "$got" != "fabdiag.import/1 ['fabdiag.check/1', 'fabdiag.counters/1'] 1" ]; then
  echo "FAIL: pile: rc=$rc got '$got'"; fail=1
fi
# --as forces the format; a wrong --as is refused by that reader (exit 2).
"$bin" import --as ibstat "$cases"/022-*.input.txt >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --as ibstat on ethtool -S: rc=$rc"; fail=1; }
"$bin" import --as nosuch "$cases"/022-*.input.txt >/dev/null 2>"$t/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "expected one of" "$t/err"; then echo "FAIL: --as nosuch: rc=$rc"; fail=1; fi
# A .tar.gz collection (one top folder, DIR/<host>/ inside) is walked like a directory and its
# members named ARCHIVE:member; triage --from over it names the node with evidence at two layers.
mkdir -p "$t/tar/collect" && cp -r "$src/tests/fixtures/triage-from/." "$t/tar/collect/"
tar -czf "$t/coll.tar.gz" -C "$t/tar" collect
mkdir -p "$t/tmp"
TMPDIR="$t/tmp" "$bin" triage --from "$t/coll.tar.gz" --format json >"$t/out" 2>"$t/err"
rc=$?
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["data"]["suspects"][0]
files = [f["file"] for f in d["params"]["files"]]
print(s["hosts"][0], s["layers"], all(f.startswith(sys.argv[2] + ":collect/") for f in files), len(files))' "$t/out" "$t/coll.tar.gz")
if [ $rc -ne 1 ] || [ "$got" != "gpu-node03 L0, L4 True 4" ]; then echo "FAIL: triage --from tar.gz: rc=$rc got '$got'"; fail=1; fi
[ -z "$(ls -A "$t/tmp")" ] || { echo "FAIL: temporary extraction directory left behind: $(ls "$t/tmp")"; fail=1; }
echo junk >"$t/bad.tar.gz"
"$bin" import "$t/bad.tar.gz" >/dev/null 2>"$t/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "tar could not extract it" "$t/err"; then echo "FAIL: bad archive: rc=$rc $(cat "$t/err")"; fail=1; fi
# pdsh-prefixed nccl-tests output ("node01: #  size  count ..."): detected as nccl-tests, each
# host's table read from its own lines, the hosts from the rank lines.
"$bin" import --format json "$src/tests/fixtures/nccl-tests/pdsh-two-hosts.txt" >"$t/out" 2>"$t/err"
rc=$?
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["params"]["detected"]["format"], len(d["data"]["tables"]), d["hosts"], len(d["errors"]))' "$t/out" 2>&1)
if [ $rc -ne 0 ] || [ "$got" != "nccl-tests 2 ['node01', 'node02'] 0" ]; then
  echo "FAIL: pdsh-prefixed nccl-tests: rc=$rc got '$got' $(head -c 300 "$t/err")"; fail=1
fi
# A member tar refuses ("..", which could write outside the extraction folder): the message names
# the archive and the member, not only tar's "Exiting with failure status".
python3 - "$t/dotdot.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as tar:
    for name in ["coll/node01/ok.txt", "coll/node01/../../../evil.txt"]:
        info = tarfile.TarInfo(name); info.size = 6
        tar.addfile(info, io.BytesIO(b"hello\n"))
PY
"$bin" import "$t/dotdot.tar.gz" >/dev/null 2>"$t/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "dotdot.tar.gz: tar could not extract it (exit 2): it refused member 'coll/node01/../../../evil.txt' (Member name contains '..')" "$t/err"; then
  echo "FAIL: refused archive member: rc=$rc $(cat "$t/err")"; fail=1
fi
# A file name with terminal escape sequences (a collection can hold anything): the table and the
# error name it with the control bytes as \xNN, never the raw ESC/BEL that would retitle or clear
# the operator's terminal.
mkdir "$t/esc"
cp "$cases"/013-*.input.txt "$t/esc/$(printf 'ib\033]0;owned\007stat.txt')"
printf 'hello\n' >"$t/esc/$(printf 'x\033[2J.txt')"
"$bin" import --format table "$t/esc" >"$t/out" 2>"$t/err"
rc=$?
if [ $rc -ne 1 ] || grep -q $'\033' "$t/out" "$t/err" || ! grep -q 'ib\\x1b]0;owned\\x07stat.txt' "$t/out" ||
   ! grep -q 'x\\x1b\[2J.txt' "$t/out"; then
  echo "FAIL: escape sequences in file names: rc=$rc"; cat -v "$t/out" "$t/err" | head -20; fail=1
fi
# A newline, tab or CR in a collected file's name: the table and Markdown cells show it as \xNN
# and never split the row (each file is one line of the "files read" table).
mkdir "$t/nl"
cp "$cases"/013-*.input.txt "$t/nl/$(printf 'ib\nstat.txt')"
printf 'hello\n' >"$t/nl/$(printf 'x\ty\r.txt')"
for fmt in table md; do
  "$bin" import --format "$fmt" "$t/nl" >"$t/out" 2>"$t/err"
  rc=$?
  if [ $rc -ne 1 ] || grep -qE '^(stat|\.txt)' "$t/out" || grep -q $'\r\|\t' "$t/out" || ! grep -q 'nl/ib\\x0astat.txt  *ibstat\|nl/ib\\x0astat.txt | ibstat' "$t/out" ||
     ! grep -q 'nl/x\\x09y\\x0d.txt' "$t/out"; then
    echo "FAIL: control characters in file names, --format $fmt: rc=$rc"; cat -A "$t/out" | head -12; fail=1
  fi
done
[ $fail -eq 0 ] && echo "ok: import detection"
exit $fail
