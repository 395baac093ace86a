#!/usr/bin/env bash
# Input bytes every reader shares (core/line_source.cpp): a leading UTF-8 BOM changes nothing,
# for every case of tests/cases/verdicts.txt through `import` (the case's command), `counters
# --from`, `check --from` and `triage --from` (exit code, findings and gaps equal); a UTF-16 file
# is refused by name; a last line without '\n' is read when whole and a gap naming file:line when cut.
#   tests/cli/input_bom_test.sh FABDIAG
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/plain" "$t/bom"
python3 - "$bin" "$src/tests/cases/verdicts.txt" "$src/tests/fixtures/cases" "$t" <<'PY' || exit 1
import glob, os, re, shlex, shutil, subprocess, sys
fabdiag, table, cases, tmp = sys.argv[1:5]
def run(cwd, args):
    p = subprocess.run([fabdiag, "-q"] + args, cwd=cwd, capture_output=True, text=True, errors="replace")
    out = re.sub(r'"[a-z_]*(duration|elapsed|_at|time|started|finished)[a-z_]*": [^,\n]*', '', p.stdout)
    return p.returncode, out, p.stderr
checked, bad = 0, []
for raw in open(table):
    line = raw.strip()
    if not line or line.startswith("#"):
        continue
    cmd = line.split(" cmd:", 1)[1].split(" open:", 1)[0] if " cmd:" in line else None
    found = glob.glob(os.path.join(cases, line.split()[0] + "-*.input.txt"))
    if not found:
        continue
    name = os.path.basename(found[0])
    shutil.copy(found[0], os.path.join(tmp, "plain", name))
    with open(found[0], "rb") as f, open(os.path.join(tmp, "bom", name), "wb") as g:
        g.write(b"\xef\xbb\xbf" + f.read())
    runs = [shlex.split(cmd.replace("FILE", shlex.quote(name))) if cmd else ["import", "--format", "json", name]]
    runs += [[c, "--from", name, "--format", "json"] for c in ("counters", "check", "triage")]
    for args in runs:
        checked += 1
        a, b = run(os.path.join(tmp, "plain"), args), run(os.path.join(tmp, "bom"), args)
        if a != b:
            first = next((x, y) for x, y in zip((a[1] + a[2]).splitlines() + [""], (b[1] + b[2]).splitlines() + [""]) if x != y) if a[0] == b[0] else ("", "")
            bad.append(f"{' '.join(args)}: exit {a[0]} without a BOM, {b[0]} with one; first difference: {first[0][:200]!r} / {first[1][:200]!r}")
print(f"input_bom: {checked} runs with and without a BOM, {len(bad)} differ")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad or checked < 100 else 0)
PY
fail=0
# expect RC PATTERN ARGS...: the exit code, and an extended regex stdout+stderr must match.
expect() {
  local rc=$1 pattern=$2; shift 2
  (cd "$t" && "$bin" "$@" >"$t/out" 2>&1 </dev/null)
  local got=$?
  if [ "$got" != "$rc" ] || ! grep -aEq -- "$pattern" "$t/out"; then
    echo "FAIL: fabdiag $* -> exit $got (expected $rc): $(head -c 600 "$t/out")"
    echo "      wanted /$pattern/"
    fail=$((fail + 1))
  fi
}
u16="u16.txt: (cannot read )?UTF-16 text \(convert with iconv -f UTF-16 -t UTF-8\)"
printf '\xff\xfeC\0A\0 \0'"'"'\0m\0\n\0' >"$t/u16.txt"
expect 2 "$u16" import u16.txt
expect 2 "$u16" counters --from u16.txt
expect 2 "$u16" check --from u16.txt
printf '\xfe\xff\0C\0A' >"$t/u16.txt"
expect 2 "$u16" import u16.txt

# The last line without '\n': whole -> read; cut -> a gap naming file:line (exit 4 when nothing else).
warn='node01:1:1 [0] misc/ibvwrap.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1234> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGidsfe80::1'
banner='node01:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4'
printf '%s\n%s' "$banner" "$warn" >"$t/nccl-whole.log"
expect 1 "nccl_ib_completion_error" import nccl-whole.log --format table
printf '%s' "$banner" >"$t/nccl-one.log"
expect 0 "2.21.5\+cuda12.4" import nccl-one.log --format table
printf '%s\nnode01:1:1 [0] NCC' "$banner" >"$t/nccl-cut.log"
expect 4 "nccl-cut.log:2: the last line ends without a newline" import nccl-cut.log --format table
printf 'NIC statistics:\n     rx_packets: 100\n     rx_crc_errors: 5' >"$t/eth-whole.txt"
expect 0 "rx_crc_errors +ethtool +phy_error +5" import eth-whole.txt --format table
printf 'NIC statistics:\n     rx_packets: 100\n     rx_crc_err' >"$t/eth-cut.txt"
expect 4 "eth-cut.txt:3: the last line ends without a newline" import eth-cut.txt --format table
ib="CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n"
printf "$ib\t\tLink layer: InfiniBand" >"$t/ibstat-whole.txt"
expect 0 "mlx5_0" check --from ibstat-whole.txt --format table
printf "$ib\t\tLink layer: Infini" >"$t/ibstat-cut.txt"
expect 4 "ibstat-cut.txt:8: the last line ends without a newline" check --from ibstat-cut.txt --format table
[ "$fail" = 0 ] || exit 1
echo "input_bom: all checks passed"
