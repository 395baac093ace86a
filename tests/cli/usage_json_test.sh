#!/usr/bin/env bash
# Usage errors (unknown flag, bad value, missing argument, a value a command refuses) with
# `--format json` on the command line: exit 2 and exactly one fabdiag.error/1 document on stdout
# whose errors[] names the option; without --format json, stdout stays empty and the message
# goes to stderr (docs/SCHEMA.md#error-documents).
#   tests/cli/usage_json_test.sh FABDIAG
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

# json SOURCE ARGS...: exit 2, one error document on stdout, errors[0].source == SOURCE.
json() {
  local want=$1; shift
  "$bin" "$@" >"$t/out" 2>"$t/err" </dev/null
  local rc=$?
  local why
  why=$(python3 - "$t/out" "$want" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
try:
    doc, end = json.JSONDecoder().raw_decode(text)
except ValueError as e:
    print("stdout is not JSON: %r" % text[:200]); sys.exit()
if text[end:].strip():
    print("more than one document on stdout"); sys.exit()
if doc.get("schema") != "fabdiag.error/1":
    print("schema %r" % doc.get("schema")); sys.exit()
errs = doc.get("errors") or []
if not errs or errs[0].get("source") != sys.argv[2]:
    print("errors[] %r does not name %s" % (errs, sys.argv[2])); sys.exit()
if doc.get("data", {}).get("exit_code") != 2:
    print("data.exit_code %r" % doc.get("data")); sys.exit()
PY
)
  if [ "$rc" != 2 ] || [ -n "$why" ] || [ ! -s "$t/err" ]; then
    echo "FAIL: fabdiag $* -> exit $rc (expected 2): ${why:-stderr empty}"
    fail=$((fail + 1))
  fi
}

# human ARGS...: exit 2, nothing on stdout, a message on stderr.
human() {
  "$bin" "$@" >"$t/out" 2>"$t/err" </dev/null
  local rc=$?
  if [ "$rc" != 2 ] || [ -s "$t/out" ] || [ ! -s "$t/err" ]; then
    echo "FAIL: fabdiag $* -> exit $rc (expected 2), stdout $(wc -c <"$t/out") bytes, stderr $(wc -c <"$t/err") bytes"
    fail=$((fail + 1))
  fi
}

healthy=(--sysfs-root "$src/tests/fixtures/check/healthy/sys")
json --no-such-flag --format json --no-such-flag doctor
json --no-such-flag doctor --no-such-flag --format=json
json --timeout bench all_reduce --timeout nan --format json
json --step-factor bench all_reduce -f -1 --format json
json --node-ratio pairwise --node-ratio inf --format json
json --interval counters --interval -5 --format json
json --tolerance baseline diff a b --tolerance nan --format json
json --iters bench all_reduce -n abc --format json
json --from check --format json --from
json --expect-rate check --expect-rate fast "${healthy[@]}" --format json
json -e bench all_reduce -e 4X --format json
json "command line" bench --format json
human --no-such-flag doctor
human bench all_reduce --timeout nan
human check --expect-rate fast "${healthy[@]}"
# --format xml is itself the usage error: no JSON was asked for
human --format xml doctor

# A capability the run needs is missing (exit 3: no NCCL library here): under --format json one
# fabdiag.error/1 document too, errors[] with code unsupported and the reason, data.exit_code 3.
capability() {
  FABDIAG_CUDART_LIB=/nonexistent/libcudart.so.12 FABDIAG_NCCL_LIB=/nonexistent/libnccl.so.2 \
    "$bin" "$@" >"$t/out" 2>"$t/err" </dev/null
  local rc=$?
  local why
  why=$(python3 - "$t/out" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
try:
    doc, end = json.JSONDecoder().raw_decode(text)
except ValueError:
    print("stdout is not JSON: %r" % text[:200]); sys.exit()
if text[end:].strip():
    print("more than one document on stdout"); sys.exit()
errs = doc.get("errors") or []
if doc.get("schema") != "fabdiag.error/1" or doc.get("data", {}).get("exit_code") != 3:
    print("schema %r data %r" % (doc.get("schema"), doc.get("data"))); sys.exit()
if not errs or errs[0].get("code") != "unsupported" or "NCCL" not in errs[0].get("message", ""):
    print("errors[] %r" % errs); sys.exit()
PY
)
  if [ "$rc" != 3 ] || [ -n "$why" ] || [ ! -s "$t/err" ]; then
    echo "FAIL: fabdiag $* -> exit $rc (expected 3): ${why:-stderr empty}"
    fail=$((fail + 1))
  fi
}
capability bench all_reduce --backend nccl --format json
capability pairwise --backend nccl --format json
FABDIAG_NCCL_LIB=/nonexistent/libnccl.so.2 "$bin" bench all_reduce --backend nccl >"$t/out" 2>/dev/null
if [ $? != 3 ] || [ -s "$t/out" ]; then echo "FAIL: bench --backend nccl without --format json printed on stdout"; fail=$((fail + 1)); fi

echo "usage json: $fail failed"
[ "$fail" -eq 0 ]
