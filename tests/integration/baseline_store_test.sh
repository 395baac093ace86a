#!/usr/bin/env bash
# The baseline store end to end on the real binary: save (new, refused, --force, from stdin via
# the nccl-tests importer), show, diff, and the $FABDIAG_BASELINE_DIR default. Uses a private
# temporary store that is removed on exit; needs no cluster.
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
fx=$src/tests/fixtures
store=$(mktemp -d "${TMPDIR:-/tmp}/fabdiag-baseline-test.XXXXXX") || { echo "SKIPPED: mktemp failed"; exit 77; }
trap 'rm -rf "$store"' EXIT
fail=0
# expect CODE ARGS...: runs fabdiag ARGS, checks the exit code.
expect() {
  local want=$1
  shift
  "$bin" "$@" >"$store/.out" 2>"$store/.err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: fabdiag $* -> exit $rc, expected $want"
    sed 's/^/      /' "$store/.err" | head -5
    fail=1
  fi
}
# contains FILE TEXT: the last output holds TEXT.
contains() {
  if ! grep -qF -- "$2" "$store/$1"; then
    echo "FAIL: expected '$2' in the output of the previous command"
    sed 's/^/      /' "$store/$1" | head -20
    fail=1
  fi
}

expect 0 baseline save nightly "$fx/baseline/store/nightly-bench.json" --store "$store/s" --format json
contains .out '"replaced": false'
[ -f "$store/s/nightly.json" ] || { echo "FAIL: $store/s/nightly.json not written"; fail=1; }
[ -z "$(find "$store/s" -name '.*')" ] || { echo "FAIL: temporary files left in the store"; fail=1; }
expect 2 baseline save nightly "$fx/baseline/current-bench.json" --store "$store/s"
contains .err "--force"
expect 0 baseline diff nightly "$fx/baseline/store/nightly-bench.json" --store "$store/s" --format table
expect 1 baseline diff nightly "$fx/baseline/current-bench.json" --store "$store/s" --format table
contains .out "REGRESSION (warn)"  # one run of history: never an error
expect 0 baseline save nightly "$fx/baseline/current-bench.json" --force --store "$store/s" --format json
contains .out '"replaced": true'
# After replacing, the new result diffs clean against itself.
expect 0 baseline diff nightly "$fx/baseline/current-bench.json" --store "$store/s" --format json
contains .out '"regression": 0'

# nccl-tests output -> import -> save from stdin -> diff, through $FABDIAG_BASELINE_DIR.
"$bin" import nccl-tests "$fx/cases/001-nccltests-allreduce-alltoall-8node-ib.input.txt" --format json >"$store/001.json"
FABDIAG_BASELINE_DIR=$store/env expect 0 baseline save nccl001 - --format table <"$store/001.json"
[ -f "$store/env/nccl001.json" ] || { echo "FAIL: FABDIAG_BASELINE_DIR not used"; fail=1; }
FABDIAG_BASELINE_DIR=$store/env expect 0 baseline diff nccl001 "$store/001.json" --format table
contains .out "alltoall"
FABDIAG_BASELINE_DIR=$store/env expect 0 baseline show --format table
contains .out "nccl001"
FABDIAG_BASELINE_DIR=$store/env expect 0 baseline show nccl001 --format json
contains .out '"pairs_measured": 0'

# History: --append keeps the last --keep runs; a diff judges against their median and spread.
expect 0 baseline save hist "$fx/baseline/store/nightly-bench.json" --store "$store/h" --format json
for i in 1 2 3 4; do
  expect 0 baseline save hist "$fx/baseline/store/nightly-bench.json" --append --keep 3 --store "$store/h" --format json
done
contains .out '"history_runs": 3'
contains .out '"pruned_points": 4'
[ -f "$store/h/hist.history" ] || { echo "FAIL: $store/h/hist.history not written"; fail=1; }
[ "$(stat -c %a "$store/h/hist.history")" = 644 ] || { echo "FAIL: hist.history is not 0644"; fail=1; }
expect 2 baseline save hist "$fx/baseline/current-bench.json" --append --force --store "$store/h"
expect 1 baseline diff hist "$fx/baseline/current-bench.json" --store "$store/h" --format table
contains .out "median of all 3 saved run(s)"
contains .out "REGRESSION (error)"  # 65 % with three identical runs behind it
expect 0 baseline show hist --store "$store/h" --format table
contains .out "3 run(s)"
ln -s /etc/passwd "$store/h/evil.history"
expect 2 baseline save evil "$fx/baseline/store/nightly-bench.json" --store "$store/h"
contains .err "symlink"
# A fleet baseline of the two bench results: too few nodes to drop outliers, both kept.
expect 0 baseline fleet fl "$fx/baseline/store/nightly-bench.json" "$fx/baseline/current-bench.json" --store "$store/h" --format json
contains .out '"outliers": []'
expect 2 baseline save fl "$fx/baseline/current-bench.json" --append --store "$store/h"
contains .err "fleet baseline"

[ "$fail" = 0 ] && echo "baseline store: all checks passed"
exit "$fail"
