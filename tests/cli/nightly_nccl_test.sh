#!/usr/bin/env bash
# The cron line of docs/nightly.md, run as written but for its sizes: scripts/fabdiag-nightly.sh
# around `fabdiag bench all_reduce --backend nccl -g 8 -f 2 -n 20`, on the fake libcudart and
# libnccl (tests/fakes: 8 "GPUs" in host memory, so 256K-1M instead of the line's 64M-1G), the
# counter window (20 s x FABDIAG_TEST_SLOWDOWN: it must outlast the bench, ~25 s under ASan on 2 busy cores) on the dgx8 fixture tree.
#   a) the first night: exit 0, silent, the run starts the history (backend nccl, 3 sizes);
#   b) a second night (tolerance 0.45, the most it takes: host-memory copies on a shared machine are no fabric to
#      judge drops on): exit 0, silent, two runs, the textfile has busbw per size of all_reduce;
#   c) a night whose NCCL cannot start (the fake's ncclCommInitAll fails): exit 4, the gap said
#      ("the bench gave no result"), nothing appended.
#   tests/cli/nightly_nccl_test.sh FABDIAG FAKE_CUDART FAKE_NCCL
set -u
bin=${1:?usage: $0 FABDIAG FAKE_CUDART FAKE_NCCL} cudart=${2:?} nccl=${3:?}
src=$(cd "$(dirname "$0")/../.." && pwd)
export FABDIAG_CUDART_LIB=$cudart FABDIAG_NCCL_LIB=$nccl FAKE_CUDA_DEVICES=8
unset FAKE_NCCL_INIT_FAIL FAKE_NCCL_CORRUPT_RANK NCCL_DEBUG
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
window=$((20 * ${FABDIAG_TEST_SLOWDOWN:-1}))
mkdir -p "$tmp/textfile"

night() { # NAME [script options]: one night into $tmp/NAME.{out,rc,prom}
  local name=$1; shift
  bash "$src/scripts/fabdiag-nightly.sh" --state-dir "$tmp/state" --textfile-dir "$tmp/textfile" --fabdiag "$bin" \
    --window "$window" --counters-arg --sysfs-root --counters-arg "$src/tests/fixtures/dgx8" "$@" \
    -- "$bin" bench all_reduce --backend nccl -g 8 -b 256K -e 1M -f 2 -n 20 >"$tmp/$name.out" 2>&1
  echo $? >"$tmp/$name.rc"
  cp "$tmp/textfile/fabdiag-nightly.prom" "$tmp/$name.prom" 2>/dev/null
}
expect() { # NAME PYTHON_CONDITION WHAT, over rc, out, prom, runs, last (the history's newest run)
  python3 - "$tmp" "$@" <<'PY' || fail=$((fail + 1))
import json, os, re, sys
tmp, name, cond, what = sys.argv[1:]
rc = int(open(f"{tmp}/{name}.rc").read())
out = open(f"{tmp}/{name}.out").read()
prom = open(f"{tmp}/{name}.prom").read() if os.path.exists(f"{tmp}/{name}.prom") else ""
h = f"{tmp}/state/baselines/nightly.history"
runs = json.load(open(h))["runs"] if os.path.exists(h) else []
ok = eval(cond)
print(("ok: " if ok else "FAIL: ") + f"{name}: {what}")
if not ok:
    print(f"  rc={rc} runs={len(runs)}\n  " + out[-1500:].replace("\n", "\n  ") + "\n  prom: " + prom[:800].replace("\n", "\n  "))
sys.exit(0 if ok else 1)
PY
}

night a
expect a 'rc == 0 and out == "" and len(runs) == 1 and "fabdiag_nightly_exit_code 0" in prom' \
  "the first night of the NCCL cron line: exit 0, silent, the history started"
grep -rqs '"backend": *"nccl"' "$tmp/state/runs" || { echo "FAIL: a: no night's result says backend nccl"; fail=$((fail + 1)); }
night b --tolerance 0.45
expect b 'rc == 0 and out == "" and len(runs) == 2 and all(re.search(r"^fabdiag_busbw_bytes_per_second\{host=\"[^\"]+\",collective=\"all_reduce\",size_bytes=\"%d\"\} [0-9.e+]+$" % s, prom, re.M) for s in (262144, 524288, 1048576))' \
  "a second night: exit 0, two runs, busbw of all_reduce per size in the textfile"
FAKE_NCCL_INIT_FAIL=1 night c --tolerance 0.45
expect c 'rc == 4 and "bench gave no result" in out and len(runs) == 2 and "fabdiag_nightly_gaps 1" in prom' \
  "NCCL that cannot start: exit 4, the gap said, nothing appended"

[ "$fail" = 0 ] || { echo "FAIL: $fail check(s)"; exit 1; }
echo "ok: the NCCL cron line"
