#!/usr/bin/env bash
# `fabdiag report`: exit codes (1 a failure, 2 not JSON / not a result / a schema it does not
# render, naming the file, 4 a file that cannot be read while the rest is rendered), JUnit that
# an XML parser accepts with hostile names in it, HTML an HTML parser accepts with every
# hostile string escaped, and --format html|junit of another command.
set -uo pipefail
bin=${1:?usage: report_test.sh FABDIAG_BINARY}
root=$(cd "$(dirname "$0")/../.." && pwd)
fix=$root/tests/fixtures/report
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$bin" report "$fix/pairwise-one-slow-node.json" --format json >"$t/a.json"
rc=$?; [ $rc = 1 ] || fail "pairwise with a slow node: exit $rc, expected 1"
python3 - "$t/a.json" <<'PY' || fail "fabdiag.report/1 document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "fabdiag.report/1", d["schema"]
# node01, its two slow pairs (explained by it), its finding and the slow_pair_inconclusive
# finding fail; node05, node06 and their slow pair are not checked.
assert d["data"]["summary"] == {"pass": 6, "fail": 5, "not_checked": 3}, d["data"]["summary"]
n1 = [n for n in d["data"]["nodes"] if n["subject"] == "node01"][0]
assert n1["status"] == "fail" and n1["measured"] == 49.33e9 and round(n1["margin_pct"], 1) == -43.8, n1
assert len(d["findings"]) == 4
l56 = [l for l in d["data"]["links"] if l["subject"] == "node05<->node06"][0]
assert l56["status"] == "not_checked" and l56["expected"] == 87.74e9, l56
PY

"$bin" report "$fix/pairwise-healthy.json" --format table >"$t/ok.txt"
rc=$?; [ $rc = 0 ] || fail "healthy pairwise: exit $rc, expected 0"

echo 'not json {' >"$t/garbage.json"
"$bin" report "$fix/pairwise-one-slow-node.json" "$t/garbage.json" --format json >/dev/null 2>"$t/err"
rc=$?; [ $rc = 2 ] || fail "non-JSON input: exit $rc, expected 2"
grep -q "garbage.json: not JSON" "$t/err" || fail "non-JSON input not named: $(cat "$t/err")"

"$bin" topo --sysfs-root "$root/tests/fixtures/dgx8" --format json >"$t/topo.json" 2>/dev/null
"$bin" report "$t/topo.json" >/dev/null 2>"$t/err"
rc=$?; [ $rc = 2 ] || fail "topo result: exit $rc, expected 2"
grep -q "topo.json: schema fabdiag.topo/1 is not one" "$t/err" || fail "unknown schema not named: $(cat "$t/err")"

"$bin" report "$fix/pairwise-healthy.json" "$t/missing.json" --format table >"$t/gap.txt" 2>"$t/err"
rc=$?; [ $rc = 4 ] || fail "missing file: exit $rc, expected 4"
grep -q "missing.json" "$t/gap.txt" || fail "missing file not named in the gaps"
grep -q "^NODES" "$t/gap.txt" || fail "the readable file was not rendered next to the gap"
"$bin" report "$t/missing.json" --format json >"$t/none.json" 2>"$t/err"
rc=$?; [ $rc = 2 ] || fail "only a missing file: exit $rc, expected 2"
grep -q "missing.json" "$t/err" || fail "only a missing file: not named on stderr: $(cat "$t/err")"

# Hostile names: markup, quotes, a control character, a CDATA end, a script tag; every string
# of a real result (host names, subjects, evidence) renamed, keys of the medians too.
python3 - "$fix/pairwise-one-slow-node.json" "$t/hostile.json" <<'PY'
import json, sys
evil = 'no"de<01>&\'\x1b]]></testcase><script>alert(1)</script>'
def walk(v):
    if isinstance(v, str): return v.replace("node01", evil)
    if isinstance(v, list): return [walk(x) for x in v]
    if isinstance(v, dict): return {walk(k): walk(x) for k, x in v.items()}
    return v
open(sys.argv[2], "w").write(json.dumps(walk(json.load(open(sys.argv[1])))))
PY
"$bin" report "$t/hostile.json" "$fix/baseline-diff-pairwise.json" --format junit >"$t/j.xml"
rc=$?; [ $rc = 1 ] || fail "junit: exit $rc, expected 1"
"$bin" report "$t/hostile.json" "$fix/baseline-diff-pairwise.json" --format html >"$t/p.html"
python3 - "$t/j.xml" "$t/p.html" <<'PY' || fail "junit or html not well-formed / not escaped"
import sys, xml.etree.ElementTree as ET
from html.parser import HTMLParser
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites"
cases = root.findall("./testsuite/testcase")
assert int(root.get("tests")) == len(cases) == 14 + 9, (root.get("tests"), len(cases))
assert int(root.get("errors")) == 2  # the diff's two gaps (node04 not measured now, node05 new)
assert int(root.get("failures")) == len(root.findall("./testsuite/testcase/failure")) == 5 + 3
names = [c.get("name") for c in cases]
evil = [n for n in names if n.startswith('no"de<01>')]
assert evil and "</testcase><script>alert(1)</script>" in evil[0], names
assert "\x1b" not in evil[0] and "\ufffd" in evil[0], evil[0]  # the control character replaced
f = [c for c in cases if c.get("name") == evil[0]][0].find("failure")
assert "measured: 49.33 GB/s" in f.text and "expected: 87.74 GB/s" in f.text and "evidence:" in f.text, f.text
assert "node01<->node03" in names, names
page = open(sys.argv[2], encoding="utf-8").read()
assert "<script" not in page and "\x1b" not in page and "</testcase>" not in page
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.hosts = []; self.tags = set()
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        a = dict(attrs)
        if tag == "tr" and "node" in a.get("class", "").split(): self.hosts.append(a.get("data-host"))
p = P(); p.feed(page)
assert "script" not in p.tags, p.tags
assert any(h and h.startswith('no"de<01>') and "<script>" in h for h in p.hosts), p.hosts
PY

# A member of the wrong type (pairwise hosts a string, not a list) is a gap naming the file and
# the key, exit 4 beside a good file, 2 alone (nothing readable): never exit 0 on an empty render.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["data"]["hosts"] = "node01"; json.dump(d, open(sys.argv[2], "w"))' \
  "$fix/pairwise-healthy.json" "$t/hosts-string.json"
"$bin" report "$t/hosts-string.json" "$fix/pairwise-healthy.json" --format json >"$t/m.json" 2>"$t/err"
rc=$?; [ $rc = 4 ] || fail "pairwise hosts a string beside a good file: exit $rc, expected 4"
python3 - "$t/m.json" "$t/hosts-string.json" <<'PY' || fail "the gap of a mistyped member"
import json, sys
d = json.load(open(sys.argv[1]))
msgs = [e["message"] for e in d["errors"]]
assert any("malformed fabdiag.pairwise/1 data: hosts: expected a list, got string" in m for m in msgs), msgs
assert any(e.get("source") == sys.argv[2] for e in d["errors"]), d["errors"]
assert not [n for n in d["data"]["nodes"] if n.get("source") == sys.argv[2]], d["data"]["nodes"]
PY

# A file given twice (or under a second name) counts once, said on stderr.
ln -s "$fix/pairwise-one-slow-node.json" "$t/again.json"
"$bin" report "$fix/pairwise-one-slow-node.json" "$t/again.json" "$fix/pairwise-one-slow-node.json" --format json >"$t/d.json" 2>"$t/err"
rc=$?; [ $rc = 1 ] || fail "a file given three times: exit $rc, expected 1"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["data"]["summary"] == {"pass": 6, "fail": 5, "not_checked": 3}, d["data"]["summary"]' "$t/d.json" \
  || fail "a file given three times is counted more than once"
[ "$(grep -c 'the same file as .*pairwise-one-slow-node.json .*read once' "$t/err")" = 2 ] || fail "repeats not noted on stderr: $(cat "$t/err")"

# A big pairwise matrix keeps the page bounded: above 64 hosts the heatmap draws 64 x 64 blocks
# (each its slowest pair, said in a note) and the links table the 2000 links with the least
# margin (said too). 300 hosts: the page was about 40 MB.
python3 - "$t/big.json" <<'PY'
import json, sys
n = 300
hosts = ["node%03d" % i for i in range(n)]
m = [[None if i == j else (20e9 if 7 in (i, j) else 45e9 + (i * 7 + j) % 100 * 1e7) for j in range(n)] for i in range(n)]
json.dump({"schema": "fabdiag.pairwise/1", "tool_version": "test", "hosts": hosts, "started_at": "2026-01-01T00:00:00Z",
           "duration_s": 1.0, "params": {}, "findings": [], "errors": [],
           "data": {"hosts": hosts, "matrix_bytes_per_s": m, "node_median_bytes_per_s": {h: 45e9 for h in hosts},
                    "fleet_median_bytes_per_s": 45e9, "outlier_nodes": [{"host": "node007"}], "outlier_links": [],
                    "inconclusive": [], "pair_notes": [], "rounds": [], "iters": 0, "size_bytes": 0}}, open(sys.argv[1], "w"))
PY
"$bin" report "$t/big.json" --format html >"$t/big.html" 2>"$t/err"
rc=$?; [ $rc = 1 ] || fail "300-host pairwise html: exit $rc, expected 1 ($(head -c 300 "$t/err"))"
bytes=$(wc -c <"$t/big.html")
[ "$bytes" -lt 5000000 ] || fail "300-host pairwise html is $bytes bytes (bound 5 MB)"
grep -q 'data-hosts="300" data-block-hosts="5"' "$t/big.html" || fail "300-host heatmap not drawn in blocks of 5"
[ "$(grep -c '<rect class="cell' "$t/big.html")" = 3600 ] || fail "300-host heatmap: $(grep -c '<rect class="cell' "$t/big.html") cells, expected 60 x 60"
grep -q 'class="legend-note heatmap-blocks">300 hosts: each cell is a block of up to 5 x 5 hosts' "$t/big.html" || fail "no note on the block heatmap"
grep -q 'id="links-not-listed">42850 of 44850 links not listed' "$t/big.html" || fail "no note on the links not listed"
grep -q 'slowest node00[0-9] -&gt; node007 20' "$t/big.html" || grep -q 'slowest node007 -&gt; node00[0-9] 20' "$t/big.html" || fail "the slow node's block does not name its slowest pair"
# The JSON report and the JUnit XML list every link (written in pieces, never held whole), the
# table and Markdown the 2000 the page lists, with a line on the rest.
"$bin" report "$t/big.json" --format json -o "$t/big-report.json" 2>"$t/err"
rc=$?; [ $rc = 1 ] || fail "300-host pairwise json: exit $rc, expected 1 ($(head -c 300 "$t/err"))"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["data"]
assert len(d["links"]) == 44850, len(d["links"])
assert d["summary"]["pass"] + d["summary"]["fail"] + d["summary"]["not_checked"] == 44850 + 300, d["summary"]
assert sum(1 for l in d["links"] if "node007" in l["subject"].split("<->")) == 299' "$t/big-report.json" \
  || fail "300-host pairwise json report does not list every link"
"$bin" report "$t/big.json" --format junit >"$t/big.xml" 2>"$t/err"
[ "$(grep -c 'classname="fabdiag.link"' "$t/big.xml")" = 44850 ] || fail "300-host junit: $(grep -c 'classname="fabdiag.link"' "$t/big.xml") link testcases, expected 44850"
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.get("tests") == str(44850 + 300), r.attrib' "$t/big.xml" \
  || fail "300-host junit totals wrong or not XML"
"$bin" report "$t/big.json" --format table >"$t/big.txt" 2>"$t/err"
grep -q '^42850 of 44850 links not listed' "$t/big.txt" || fail "the table does not say which links it leaves out"

# Another command's own --format html|junit goes through the same renderers.
"$bin" import pairs "$root/tests/fixtures/cases/028-pairwise-busbw-one-slow-node.input.txt" --format html >"$t/028.html"
grep -q '<svg xmlns="http://www.w3.org/2000/svg" id="pairwise-heatmap"' "$t/028.html" || fail "import pairs --format html has no heatmap"
grep -q '<tr class="node fail" data-host="node01">' "$t/028.html" || fail "import pairs --format html: node01 not failing"
"$bin" topo --sysfs-root "$root/tests/fixtures/dgx8-degraded" --format junit >"$t/topo.xml" 2>/dev/null
python3 -c "import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); assert int(r.get('failures')) > 0" "$t/topo.xml" \
  || fail "topo --format junit: not well-formed or no failure"
[ $status = 0 ] && echo "report: exit codes, escaping and formats ok"
exit $status
