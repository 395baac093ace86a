#!/usr/bin/env bash
# `fabdiag accept --spec SPEC.yaml --from ...` as an acceptance engineer runs it over saved results
# (tests/fixtures/accept, tests/fixtures/accept/make.sh): the healthy 4-node HGX run passes every
# check with the derived floors; the run with one slow node (node03) and one link with rising
# symbol errors (node02 mlx5_3/1) fails exactly those two, naming measured, expected and margin;
# bad specs are exit 2 naming FILE:LINE:COLUMN; --help teaches. Each check asserts values.
#   tests/cli/accept_test.sh FABDIAG
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src" || exit 1
F=tests/fixtures/accept
spec=docs/specs/hgx-h100-8gpu.yaml
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
py() { python3 -c "$1" "$t/out"; }
faulty=("$F/healthy/node01" "$F/healthy/node02/topo.json" "$F/healthy/node02/check.json"
        "$F/faulty/node02/counters.json" "$F/healthy/node03" "$F/healthy/node04"
        "$F/healthy/all_reduce_perf.txt" "$F/healthy/alltoall_perf.txt" "$F/faulty/pairwise.json")

# Healthy: exit 0, every node and link pass, nothing not checked; the derived floors are the
# topology's: 0.8 x 8 x 400G = 320 GB/s all_reduce, 75 GB/s alltoall, 40 GB/s a pair.
"$bin" accept --spec "$spec" --from "$F/healthy" --format json >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
d = json.load(open(sys.argv[1]))["data"]
c = {(x["subject"], x["check"]): x for x in d["checks"]}
print(d["summary"], sorted({n["status"] for n in d["nodes"]}), len(d["nodes"]), sorted({l["status"] for l in d["links"]}),
      len(d["links"]), c[("node01, node02", "busbw:all_reduce:1G")]["expected"], c[("node01, node02", "busbw:alltoall:1G")]["expected"],
      c[("node01<->node02", "pair_bandwidth")]["expected"], round(c[("node01, node02", "busbw:all_reduce:1G")]["margin_pct"], 2),
      c[("node01", "pcie_width:nic")]["measured"], c[("node04:mlx5_7/1", "counter_growth:symbol_error")]["status"])')
want="{'fail': 0, 'not_checked': 0, 'pass': 189} ['pass'] 4 ['pass'] 38 320000000000.0 75000000000.0 40000000000.0 11.62 16.0 pass"
[ $rc -eq 0 ] && [ "$got" = "$want" ] || { echo "FAIL: healthy run: rc=$rc"; echo "  got  $got"; echo "  want $want"; fail=1; }

# One slow node and one link with rising symbol errors: exit 1, exactly those two fail, with
# measured vs expected and the margin; the slow node's pairs are attributed to it (not_checked).
"$bin" accept --spec "$spec" --from "${faulty[@]}" --format json >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
doc = json.load(open(sys.argv[1])); d = doc["data"]
bad = [(x["scope"], x["subject"], x["check"], x["measured"], x["expected"], x["margin"], x["margin_pct"] and round(x["margin_pct"], 2))
       for x in d["checks"] if x["status"] == "fail"]
print(bad)
print([n["host"] for n in d["nodes"] if n["status"] != "pass"], [l["link"] for l in d["links"] if l["status"] == "fail"],
      sorted(l["link"] for l in d["links"] if l["status"] == "not_checked"), d["summary"])
print([(f["code"], f["subject"]) for f in doc["findings"]])
print([f["message"] for f in doc["findings"]][1])')
want="[('node', 'node03', 'pair_bandwidth_median', 28050000000.0, 40000000000.0, -11950000000.0, -29.88), ('link', 'node02:mlx5_3/1', 'counter_growth:symbol_error', 42.0, 0.0, -42.0, None)]
['node03'] ['node02:mlx5_3/1'] ['node01<->node03', 'node02<->node03', 'node03<->node04'] {'fail': 2, 'not_checked': 3, 'pass': 184}
[('accept_pair_bandwidth_median', 'node03'), ('accept_counter_growth', 'node02:mlx5_3/1')]
counter_growth:symbol_error failed on node02:mlx5_3/1: measured 42 count, expected 0 count, margin -42 count (growth over 600 s (0.07/s))"
[ $rc -eq 1 ] && [ "$got" = "$want" ] || { echo "FAIL: slow node + symbol errors: rc=$rc"; echo "  got  $got"; echo "  want $want"; fail=1; }
# The table names them too, measured vs expected and the margin on the failing row.
"$bin" accept --spec "$spec" --from "${faulty[@]}" --format table >"$t/out" 2>"$t/err"; rc=$?
row=$(grep -E '^node +node03 +pair_bandwidth_median +fail' "$t/out" | tr -s ' ')
[ $rc -eq 1 ] && [[ "$row" == *"28.05 GB/s 40 GB/s -29.9%"* ]] || { echo "FAIL: table row of node03: rc=$rc '$row'"; fail=1; }
row=$(grep -E '^link +node02:mlx5_3/1 +counter_growth:symbol_error +fail' "$t/out" | tr -s ' ')
[[ "$row" == *"42 count 0 count -42 count growth over 600 s"* ]] || { echo "FAIL: table row of node02:mlx5_3/1: '$row'"; fail=1; }

# Live on a node (the dgx8 fixture tree as /sys): topo, check and a counter window of --duration;
# a spec without delivery floors needs no bench: exit 0, 10 node checks and 2 counters on each of 8 port links pass.
"$bin" --sysfs-root tests/fixtures/dgx8 accept --spec "$F/specs/node-only.yaml" --duration 0.05 --format json \
  >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["data"]["summary"], len(d["data"]["nodes"]), len(d["data"]["links"]), [i["input"] for i in d["params"]["inputs"]][-1])')
want="{'fail': 0, 'not_checked': 0, 'pass': 26} 1 8 live: fabdiag counters --interval 0.05 --all"
[ $rc -eq 0 ] && [ "$got" = "$want" ] || { echo "FAIL: live on dgx8: rc=$rc"; echo "  got  $got"; echo "  want $want"; fail=1; }

# A bad spec is exit 2 and the message names the file, line and column (or why the file is unusable).
while IFS='|' read -r file want; do
  "$bin" accept --spec "$file" --from "$F/healthy" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$want" "$t/err" || { echo "FAIL: bad spec $file: rc=$rc, stderr: $(cat "$t/err")"; fail=1; }
done <<EOT
$F/specs/unknown-key.yaml|--spec: $F/specs/unknown-key.yaml:6:3: node.nvlink_per_gpu: unknown key (expected one of: gdr, gpus, nics, nvlinks_per_gpu,
$F/specs/duplicate-key.yaml|--spec: $F/specs/duplicate-key.yaml:7:3: node.gpus: duplicate (first at line 5)
$F/specs/wrong-type.yaml|--spec: $F/specs/wrong-type.yaml:6:9: node.gpus: expected an integer, got 'eight'
$F/specs/bad-yaml.yaml|--spec: $F/specs/bad-yaml.yaml:5:1: end of sequence flow not found
$t/missing.yaml|--spec: $t/missing.yaml: cannot open: No such file or directory
EOT

# A 1-rank bench (one GPU of one node) has busbw 0 by definition: not a fabric measurement, so
# its floor is not_checked with that reason (it failed at 0 GB/s against the spec's floor), exit 4.
cat >"$t/one.yaml" <<'EOS'
version: 1
deliver:
  busbw:
    - {collective: all_reduce, size: 1G, min_busbw_gbyte_per_s: 300}
EOS
{ sed -n '1,4p' "$F/healthy/all_reduce_perf.txt"; echo '#'
  sed -n '/out-of-place/,/(B)/p' "$F/healthy/all_reduce_perf.txt"
  echo '  1073741824     268435456     float     sum      -1    430.1  2496.5    0.00      0    430.1  2496.5    0.00      0'
  echo '# Avg bus bandwidth    : 0.0000'; echo '# Collective test concluded: all_reduce_perf'; } >"$t/all_reduce_perf.txt"
"$bin" accept --spec "$t/one.yaml" --from "$t/all_reduce_perf.txt" --format json >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
d = json.load(open(sys.argv[1]))["data"]
print(d["summary"], [(c["subject"], c["check"], c["status"], c["measured"], c["reason"]) for c in d["checks"]])')
want="{'fail': 0, 'not_checked': 1, 'pass': 0} [('node01', 'busbw:all_reduce:1G', 'not_checked', 0.0, '1 rank: busbw of a single rank moves nothing between ranks (not a fabric measurement); bench with 2 or more ranks')]"
[ $rc -eq 4 ] && [ "$got" = "$want" ] || { echo "FAIL: 1-rank bench: rc=$rc"; echo "  got  $got"; echo "  want $want"; cat "$t/err"; fail=1; }

# A file no reader claims: accept has no --as, so the hint names the import that converts it.
"$bin" accept --spec "$spec" --from "$F/healthy" tests/fixtures/import-pile/unknown-tool.txt --format json >"$t/out" 2>"$t/err"; rc=$?
want='unknown-tool.txt: not the output of a tool fabdiag reads (line 1: "Thermal zone report"); read it with `fabdiag import --as FORMAT FILE > RESULT.json` (FORMAT: `fabdiag import --help`) and give RESULT.json to --from'
grep -qF -- "$want" "$t/err" && ! grep -q 'name it with --as' "$t/err" || { echo "FAIL: accept's hint for an unclaimed file (rc=$rc): $(cat "$t/err")"; fail=1; }

# A malformed topo.json (data.devices not a list): the inputs say it was not read and why, as the
# checks that needed it do (not "topo of node01" beside "no fabdiag.topo/1 result"); exit 4.
mkdir -p "$t/bad/node01"
cp "$F/healthy/node01/check.json" "$t/bad/node01/"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["data"]["devices"] = "oops"; json.dump(d, open(sys.argv[2], "w"))' \
  "$F/healthy/node01/topo.json" "$t/bad/node01/topo.json"
"$bin" accept --spec "$F/specs/node-only.yaml" --from "$t/bad" --format json >"$t/out" 2>"$t/err"; rc=$?
got=$(py '
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["check"]: x for x in d["data"]["checks"]}
print([i["used_as"] for i in d["params"]["inputs"] if i["input"].endswith("topo.json")], c["gpu_count"]["status"])')
want="['not read: fabdiag.topo/1 is malformed: data.devices is not a list'] not_checked"
[ $rc -eq 4 ] && [ "$got" = "$want" ] && grep -qF "bad/node01/topo.json: fabdiag.topo/1: data.devices is not a list; not read" "$t/err" ||
  { echo "FAIL: malformed topo.json: rc=$rc"; echo "  got  $got"; echo "  want $want"; cat "$t/err"; fail=1; }

# --help teaches: the checks per node, link and run, the derivation, an example, the exit codes.
"$bin" accept --help >"$t/out" 2>&1; rc=$?
for want in "per node" "per link" "busbw:COLLECTIVE:SIZE" "efficiency x rail port rate x rails" "320 GB/s" \
            "fabdiag accept --spec docs/specs/hgx-h100-8gpu.yaml --from results/" "FILE:LINE:COLUMN" "Exit: 0 every check passed"; do
  [ $rc -eq 0 ] && grep -qF -- "$want" "$t/out" || { echo "FAIL: accept --help lacks '$want' (rc=$rc)"; fail=1; }
done

[ $fail -eq 0 ] && echo "accept: all checks passed"
exit $fail
