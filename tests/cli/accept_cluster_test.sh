#!/usr/bin/env bash
# `fabdiag accept --spec S --hostfile H` without a cluster: usage errors before mpirun starts
# (a bad hostfile line is exit 2 naming FILE:LINE:COLUMN; one host; --from with --hostfile; a bad
# --pair-size), no mpirun (exit 3), and the launcher's judging through a stand-in mpirun that
# plays rank 0's stream (the JSON lines of `accept --worker`): a host the launch names as not
# answering is dropped, the job relaunched on the rest and that host's checks not_checked; a job
# that dies after a partial stream is judged on what was collected, marked partial, -o written.
# The live run itself is tests/integration/accept_emu_test.sh.
#   tests/cli/accept_cluster_test.sh FABDIAG
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src" || exit 1
F=tests/fixtures/accept/healthy
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
printf 'version: 1\nnode:\n  gpus: 8\n  nics: 8\n' >"$t/spec.yaml"
expect() { # what, want-rc, got-rc, stderr-text
  [ "$3" -eq "$2" ] && grep -qF -- "$4" "$t/err" || { echo "FAIL: $1: rc=$3 (want $2), stderr: $(cat "$t/err")"; fail=1; }
}

printf 'node01\n# a comment\nnode02 slotz=2\n' >"$t/bad-hosts"
"$bin" accept --spec "$t/spec.yaml" --hostfile "$t/bad-hosts" 2>"$t/err"; rc=$?
expect "a bad hostfile line" 2 $rc "--hostfile: $t/bad-hosts:3:8: unknown hostfile keyword 'slotz'"
printf 'node01\n' >"$t/one-host"
"$bin" accept --spec "$t/spec.yaml" --hostfile "$t/one-host" 2>"$t/err"; rc=$?
expect "one host" 2 $rc "a cluster run needs at least 2 hosts, the hostfile names 1"
printf 'node01\nnode02\nnode03\n' >"$t/hosts"
"$bin" accept --spec "$t/spec.yaml" --hostfile "$t/hosts" --from "$F" 2>"$t/err"; rc=$?
expect "--from with --hostfile" 2 $rc "excludes"
"$bin" accept --spec "$t/spec.yaml" --hostfile "$t/hosts" --pair-size 4Q 2>"$t/err"; rc=$?
expect "a bad --pair-size" 2 $rc '--pair-size: invalid size "4Q"'
"$bin" accept --spec "$t/spec.yaml" --hostfile "$t/hosts" --mpirun "$t/no-such-mpirun" 2>"$t/err"; rc=$?
expect "no mpirun" 3 $rc "no-such-mpirun: cannot run"

# Rank 0's stream as `accept --worker` writes it: a fabdiag.import/1 envelope of parts
# {schema, host, source, data}, node01 and node02's saved topo and check (partial: PARTIAL).
stream() { # PARTIAL FILE
  python3 - "$1" "$2" "$F" <<'PY'
import json, sys
partial, path, F = sys.argv[1] == "1", sys.argv[2], sys.argv[3]
env = json.load(open(f"{F}/node01/topo.json"))
parts = []
for h in ("node01", "node02"):
    for k in ("topo", "check"):
        d = json.load(open(f"{F}/{h}/{k}.json"))
        parts.append({"schema": d["schema"], "host": h, "source": f"{h}: fabdiag {k}", "data": d["data"]})
env.update(schema="fabdiag.import/1", hosts=["node01", "node02"], data={"parts": parts}, findings=[], errors=[])
if partial:
    env.update(partial=True, cut={"reason": "", "during": "the counter window", "not_run": "the soak"})
open(path, "w").write(json.dumps(env) + "\n")
PY
}
stream 0 "$t/whole.jsonl"
stream 1 "$t/partial.jsonl"
# The stand-in mpirun: host probes (fabdiag --version) answer; -np 3 fails naming node03 as ssh
# does; -np 2 streams $FAKE_STREAM and exits $FAKE_RC.
cat >"$t/mpirun" <<'SH'
#!/usr/bin/env bash
np=0 prev=""
for a in "$@"; do [ "$prev" = -np ] && np=$a; prev=$a; done
case " $* " in *" --version "*) exit 0 ;; esac
echo "$*" >>"$FAKE_LOG"
if [ "$np" = 3 ]; then echo "ssh: connect to host node03 port 22: Connection refused" >&2; exit 255; fi
cat "$FAKE_STREAM"
echo "fabdiag: accept: counter window open on all 2 ranks" >&2
[ "$FAKE_RC" = hang ] && exec sleep 60
exit "$FAKE_RC"
SH
chmod +x "$t/mpirun"

FAKE_LOG=$t/log FAKE_STREAM=$t/whole.jsonl FAKE_RC=0 \
  "$bin" accept --spec "$t/spec.yaml" --hostfile "$t/hosts" --mpirun "$t/mpirun" --format json -o "$t/dead.json" 2>"$t/err"; rc=$?
expect "a dead host" 4 $rc "node03"
got=$(python3 - "$t/dead.json" "$t/log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
launches = open(sys.argv[2]).read().splitlines()
nodes = {n["host"]: n["status"] for n in d["data"]["nodes"]}
print(nodes, d.get("partial", False), any("node03" in e.get("source", "") + e.get("message", "") for e in d["errors"]),
      len(launches), "accept --worker --spec" in launches[0], "-np 2" in launches[-1])
PY
)
want="{'node01': 'pass', 'node02': 'pass', 'node03': 'not_checked'} False True 2 True True"
[ "$got" = "$want" ] || { echo "FAIL: a dead host is named and the rest judged"; echo "  got  $got"; echo "  want $want"; fail=1; }

printf 'node01\nnode02\n' >"$t/hosts2"
FAKE_LOG=$t/log2 FAKE_STREAM=$t/partial.jsonl FAKE_RC=1 \
  "$bin" accept --spec "$t/spec.yaml" --hostfile "$t/hosts2" --mpirun "$t/mpirun" --format json -o "$t/cut.json" 2>"$t/err"; rc=$?
expect "a job that died after a partial stream" 4 $rc "what was collected is judged, marked partial"
got=$(python3 - "$t/cut.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["partial"], d["cut"]["during"], d["data"]["summary"], sorted(c["check"] for c in d["data"]["checks"]))
PY
)
want="True the counter window {'fail': 0, 'not_checked': 0, 'pass': 4} ['gpu_count', 'gpu_count', 'nic_count', 'nic_count']"
[ "$got" = "$want" ] || { echo "FAIL: a cut job is judged on what was collected"; echo "  got  $got"; echo "  want $want"; fail=1; }

# Ctrl-C while the job runs: mpirun is stopped and what was collected is judged, marked partial
# (exit 130), the result written to -o.
FAKE_LOG=$t/log3 FAKE_STREAM=$t/partial.jsonl FAKE_RC=hang \
  "$bin" accept --spec "$t/spec.yaml" --hostfile "$t/hosts2" --mpirun "$t/mpirun" --format json -o "$t/int.json" 2>"$t/err" &
job=$!
for _ in $(seq 100); do grep -q "counter window open" "$t/err" && break; sleep 0.1; done
kill -INT "$job"
wait "$job"; rc=$?
expect "Ctrl-C" 130 $rc "interrupted by SIGINT"
got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["partial"], d["cut"]["reason"], d["data"]["summary"]["pass"])' "$t/int.json" 2>&1)
[ "$got" = "True interrupted by SIGINT 4" ] || { echo "FAIL: Ctrl-C judges what was collected: $got"; fail=1; }

[ $fail -eq 0 ] && echo "accept_cluster: all checks passed"
exit $fail
