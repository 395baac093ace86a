#!/usr/bin/env bash
# `fabdiag triage --from` and `fabdiag import` over collections as operators make them: one bad
# file among good ones, links and FIFOs in folders, stdin, rack/node folder levels, host names
# with and without their domain, switch outputs collected under a host's folder, hosts whose
# files are all unreadable. Each check asserts the verdict's values.
#   tests/cli/triage_from_test.sh FABDIAG
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
cases=$src/tests/fixtures/cases
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
py() { python3 -c "$1" "$t/out"; }

# One unreadable host-facts file does not cost the good one: its two down ports are read (exit 1).
mkdir -p "$t/d1"
cp "$cases"/013-*.input.txt "$t/d1/a-ibstat.txt"
printf "CA 'mlx5_9'\nnonsense here\n" >"$t/d1/b-ibstat.txt"
"$bin" import --format json "$t/d1" >"$t/out" 2>"$t/err"; rc=$?
got=$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted({f["code"] for f in d["findings"] if f["severity"]!="info"}))')
[ $rc -eq 1 ] && [ "$got" = "['port_down']" ] || { echo "FAIL: one bad ibstat file: rc=$rc got $got"; fail=1; }

# A link and a FIFO inside a folder are listed as not read, never dropped in silence.
mkdir -p "$t/d2"
cp "$cases"/013-*.input.txt "$t/d2/ibstat.txt"
ln -s "$t/d2/ibstat.txt" "$t/d2/link.txt"
mkfifo "$t/d2/pipe"
"$bin" import --format json "$t/d2" >"$t/out" 2>"$t/err"; rc=$?
got=$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted((f["file"].rsplit("/",1)[1], f["format"] is None) for f in d["params"]["files"]))')
[ "$got" = "[('ibstat.txt', False), ('link.txt', True), ('pipe', True)]" ] || { echo "FAIL: link/FIFO in a folder: $got"; fail=1; }

# stdin is copied aside, detected and read: no --as needed.
"$bin" import --format json - <"$cases"/013-*.input.txt >"$t/out" 2>"$t/err"; rc=$?
got=$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(d["params"]["detected"]["format"], d["params"]["detected"]["file"])')
[ $rc -eq 1 ] && [ "$got" = "ibstat -" ] || { echo "FAIL: stdin: rc=$rc got '$got' $(cat "$t/err")"; fail=1; }

# rack1/node0N/: the node level names the hosts; node03.cluster.local and node03 are one host;
# switch output under a host's folder is fabric; a host with only unreadable files is not judged.
mkdir -p "$t/c/rack1/node01" "$t/c/rack1/node03.cluster.local" "$t/c/rack2/node02" "$t/c/rack2/node04"
cp "$cases"/017-*.input.txt "$t/c/rack1/node01/perfquery.txt"
cp "$cases"/013-*.input.txt "$t/c/rack1/node03.cluster.local/ibstat.txt"
sed 's/node01:/node03:/g' "$cases"/003-*.input.txt >"$t/c/rack1/node03.cluster.local/nccl.log"
cp "$cases"/018-*.input.txt "$t/c/rack2/node02/ibqueryerrors.txt"
printf 'garbage\n' >"$t/c/rack2/node04/junk.txt"
"$bin" triage --from "$t/c" --format json >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
d = json.load(open(sys.argv[1]))["data"]
sus = [(s["hosts"][0], s["layers"]) for s in d["suspects"] if not s["hosts"][0].startswith("(")]
fabric = sorted({f["subject"].split(" port")[0] for f in d["fabric"]})
print(sus, fabric, [c["subject"] for c in d["not_judged"]], "rack1" in d["hosts"])')
want="[('node03', 'L0, L4')] ['MF0;switch01:SX6036/U1'] ['node04'] False"
[ "$got" = "$want" ] || { echo "FAIL: collection: got $got"; echo "      want $want"; fail=1; }

# The GPU and job layers of four nodes (real pastes, SOURCES-w1.md): a GPU lost from the bus and
# a training log's watchdog timeout (node01), Xid 45s caused by NVLink Xids with a healthy dcgmi
# link status (node02), an NCCL 2.3 IB log and an idle nvidia-smi -q fragment (node03), GDR
# disabled beside a healthy all_reduce table cut above its header (node04). Saved GPU outputs
# name no host: their DIR/<host>/ does, never the machine that reads them.
mkdir -p "$t/g/node01" "$t/g/node02" "$t/g/node03" "$t/g/node04"
cp "$cases"/w127-*.input.txt "$t/g/node01/dmesg.txt"
cp "$cases"/w112-*.input.txt "$t/g/node01/train.log"
cp "$cases"/w126-*.input.txt "$t/g/node02/kern.log"
cp "$cases"/w123-*.input.txt "$t/g/node02/dcgmi.txt"
sed 's/node01/node03/g' "$cases"/w107-*.input.txt >"$t/g/node03/nccl.log"
cp "$cases"/w128-*.input.txt "$t/g/node03/nvsmi-q.txt"
sed 's/node01/node04/g' "$cases"/w105-*.input.txt >"$t/g/node04/nccl.log"
cp "$cases"/w121-*.input.txt "$t/g/node04/allreduce.txt"
"$bin" triage --from "$t/g" --format json >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
d = json.load(open(sys.argv[1]))["data"]
sus = [(s["hosts"][0], s["severity"], sorted({e["metric"] for e in s["evidence"]})) for s in d["suspects"]]
print(sus, [c["subject"] for c in d["cleared"]], d["hosts"])')
want="[('node01', 'critical', ['gpu_xid', 'pytorch_collective_timeout']), ('node02', 'error', ['gpu_xid']), ('node04', 'error', ['nccl_gdr_disabled'])] ['node03'] ['node01', 'node02', 'node03', 'node04']"
[ $rc -eq 1 ] && [ "$got" = "$want" ] || { echo "FAIL: GPU layer collection: rc=$rc got $got"; echo "      want $want"; fail=1; }

[ $fail -eq 0 ] && echo "ok: triage --from and import collections"
exit $fail
