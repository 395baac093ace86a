# Shared pieces of the integration tests (sourced, not run; not a *_test.sh, so ctest skips it).
#
#   emu_prelude TAG BINARY      sets bin (absolute), root, emu, state (FABDIAG_EMU_STATE) for a
#                               test on the emulated cluster; exits 77 ("SKIPPED: reason") when it
#                               cannot run here (not root, no mpirun/python3, a cluster already up)
#   emu_workspace               out (a fresh temp dir) and an EXIT trap, emu_cleanup: the test's
#                               own emu_cleanup_extra first when it defines one (background jobs,
#                               cgroups), then the cluster down and state and out removed
#   emu_up ARGS...              "\$emu up --state \$state ARGS", its log in \$out/up.log; when it fails
#                               prints "FAIL: emucluster up ARGS" and the log, and exits 1
#   slow                        FABDIAG_TEST_SLOWDOWN (an integer, default 1; scripts/test-sanitize.sh
#                               sets 3): every wait below is S x slow; tests scale their deadlines
#   wait_for_checkpoint F EXPR [S]
#                               polls until the JSON file F satisfies the python expression EXPR
#                               over d (default at most 60 s); 1 when the job $job ended first
#   finish_job NAME DIR [S]     waits for $job (at most S s, default 30; kills its group after
#                               that), writes its exit status to DIR/NAME.rc, clears $job
#   check_json DIR NAME CODE    runs python assertions CODE with d (DIR/NAME.out, when it is
#                               JSON), o (DIR/NAME.o.json), c (DIR/NAME.ckpt), rc, out_text and
#                               ok(what, cond); extra python definitions in $CHECK_HELPERS; on a
#                               failure increments $fails and shows the tail of DIR/NAME.err

slow=${FABDIAG_TEST_SLOWDOWN:-1}

emu_prelude() {
  local tag=$1 binary=$2
  bin=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  emu=$root/scripts/emucluster.sh
  state=$(mktemp -d "/tmp/fabdiag-$tag.XXXXXX")
  rmdir "$state"
  export FABDIAG_EMU_STATE=$state
  [ "$(id -u)" -eq 0 ] || { echo "SKIPPED: needs root for network namespaces and tc"; exit 77; }
  command -v mpirun >/dev/null || { echo "SKIPPED: mpirun not installed"; exit 77; }
  command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed (JSON assertions)"; exit 77; }
  if [ -f /run/fabdiag-emucluster.state ] && [ -f "$(cat /run/fabdiag-emucluster.state 2>/dev/null)/env" ]; then
    echo "SKIPPED: another emulated cluster is up ($(cat /run/fabdiag-emucluster.state)); not tearing it down"
    exit 77
  fi
}

emu_workspace() {
  out=$(mktemp -d)
  trap emu_cleanup EXIT
}

emu_cleanup() {
  if declare -F emu_cleanup_extra >/dev/null; then emu_cleanup_extra; fi
  "$emu" down --state "$state" >/dev/null 2>&1
  rm -rf "$state" "$out"
}

emu_up() {
  "$emu" up --state "$state" "$@" >"$out/up.log" 2>&1 || { echo "FAIL: emucluster up $*"; cat "$out/up.log"; exit 1; }
}

wait_for_checkpoint() {
  local f=$1 expr=$2 tries=$(( ${3:-60} * 10 * slow )) i
  for i in $(seq "$tries"); do
    if [ -s "$f" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('yes' if ($expr) else 'no')" "$f" 2>/dev/null | grep -q yes; then
      return 0
    fi
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

finish_job() {
  local name=$1 dir=$2 tries=$(( ${3:-30} * 10 * slow )) i
  for i in $(seq "$tries"); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$job" 2>/dev/null; then
    echo "FAIL $name: still running $(( ${3:-30} * slow )) s after the signal"
    kill -KILL -- "-$job"
  fi
  wait "$job"
  echo $? >"$dir/$name.rc"
  job=""
}

check_json() {
  local dir=$1 name=$2 code=$3
  if python3 - "$dir" "$name" <<PY
import json, os, sys
tmp, name = sys.argv[1], sys.argv[2]
cut_files = []
def load(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    text = open(path).read()
    try:
        doc, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError:
        cut_files.append(path)  # a document that stops short: the checks see None
        return None
    if text[end:].strip():
        raise SystemExit(f"{path}: more than one JSON document")
    return doc
rc = int(open(f"{tmp}/{name}.rc").read())
out_text = open(f"{tmp}/{name}.out").read()
d = load(f"{tmp}/{name}.out") if out_text.lstrip().startswith("{") else None
o = load(f"{tmp}/{name}.o.json")
c = load(f"{tmp}/{name}.ckpt")
fails = 0
def ok(what, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + name + ": " + what)
    fails += 0 if cond else 1
${CHECK_HELPERS:-}
$code
sys.exit(1 if fails else 0)
PY
  then :; else
    fails=$((fails + 1))
    grep -v setpgid "$dir/$name.err" | tail -5
  fi
}

# check_suspects NAME EXPR: a triage scenario's assertion. EXPR is Python over S (the suspects),
# d (the result JSON in $out/NAME.json) and rc ($out/NAME.rc; 99 when missing). Counts into
# $passed / $fail and prints ok/FAIL NAME (with the suspects and the stderr tail on a failure).
check_suspects() {
  local name=$1 expr=$2
  if python3 - "$out/$name.json" "$(cat "$out/$name.rc" 2>/dev/null || echo 99)" <<PY
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("result is not JSON:", e); sys.exit(1)
rc = int(sys.argv[2])
S = d["data"]["suspects"]
ok = bool($expr)
if not ok:
    print("suspects:", [(s["kind"], s.get("subject"), s["hosts"], s.get("layer")) for s in S], "rc", rc, "errors", d["errors"])
sys.exit(0 if ok else 1)
PY
  then passed=$((passed + 1)); echo "ok   $name"
  else fail=$((fail + 1)); echo "FAIL $name"; tail -5 "$out/$name.err"; fi
}
