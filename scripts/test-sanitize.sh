#!/usr/bin/env bash
# The sanitizer and fuzz stage of CI (scripts/test.sh runs it after the normal tests; README
# "Tests"). One clang build with AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer
# (undefined behaviour aborts, no recovery) and the libFuzzer targets of tests/fuzz, in its own
# build folder; then the whole ctest suite under the sanitizers, then every fuzz target for a
# bounded time over a seed corpus (tests/fixtures and, when present, ../shared/cases).
#
#   scripts/test-sanitize.sh [build] [ctest] [fuzz]      (no argument: all three, in order)
#
# Knobs (environment):
#   FABDIAG_SANITIZE_BUILD_DIR  build folder (default: build-sanitize in the tree)
#   FABDIAG_FUZZ_SECONDS        seconds each fuzz target runs at most (default 60; 0 skips fuzzing)
#   FABDIAG_FUZZ_RUNS           inputs each fuzz target runs at most (default 6000, sysfs_*: a
#                               tenth; -1: no cap)
#   FABDIAG_FUZZ_TARGETS        only the targets whose name matches this regex (default: all)
#   FABDIAG_FUZZ_SEED           libFuzzer's -seed (default 1; 0 draws a new one each run)
#   FABDIAG_FUZZ_JOBS           fuzz targets run at once (default: 2, at most the CPU count)
#   FABDIAG_CTEST_JOBS          ctest -j (default 2; integration tests run alone anyway)
#   FABDIAG_SANITIZE_ALL        1: also the four long emulated-cluster walks left out by default
#   FABDIAG_FUZZ_WORK           where corpora, logs and crash inputs go (default BUILD/fuzz-run)
#
# Fails (exit 1) on a test failure, on any sanitizer report written during the tests (also from
# a process whose exit code a test does not check), and on any fuzz crash, leak, timeout or
# out-of-memory: it names the target and the path of the input that did it. A crashing input
# becomes a regression test in tests/fuzz/regressions/<target>/ (ctest fuzz/regressions_*).
#
# The fixed seed and the run cap make the CI gate reproducible: the same tree mutates its
# corpus the same way on every machine, and CI's time box is meant never to bind (the slowest
# text target, detect, runs ~160 inputs/s on 2 idle cores; the sysfs targets ~4/s), so a tree
# whose every target ran its full cap here (a long FABDIAG_FUZZ_SECONDS on a loaded machine)
# passes or fails in CI alike. Any code change moves the mutations, so the final tree is the
# one to run. Searching for new crashes is a developer's job, with a fresh seed:
#   FABDIAG_FUZZ_SEED=0 FABDIAG_FUZZ_RUNS=-1 FABDIAG_FUZZ_SECONDS=600 scripts/test-sanitize.sh fuzz
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FABDIAG_SANITIZE_BUILD_DIR:-$root/build-sanitize}
fuzz_seconds=${FABDIAG_FUZZ_SECONDS:-60}
fuzz_runs=${FABDIAG_FUZZ_RUNS:-6000}
fuzz_targets=${FABDIAG_FUZZ_TARGETS:-.}
fuzz_seed=${FABDIAG_FUZZ_SEED:-1}
cpus=$(nproc)
fuzz_jobs=${FABDIAG_FUZZ_JOBS:-$((cpus < 2 ? cpus : 2))}
ctest_jobs=${FABDIAG_CTEST_JOBS:-2}
work=${FABDIAG_FUZZ_WORK:-$build/fuzz-run}
supp=$root/tests/sanitize

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build ctest fuzz)

# Tests left out under the sanitizers, each with the reason it is printed with: the four longest
# walks of the emulated cluster (2-6 minutes each here, 4-5 minutes of wire time that ASan does
# not speed up). The normal suite ran them just before; their code (the triage walk, the nightly
# script around bench/counters/baseline) goes through the sanitizers in the shorter emulated
# scenarios kept here (triage_straggler_emu, triage_dead_emu, triage_partial_emu,
# partial_results, accept_emu, pairwise_emu) and in the unit, CLI and sim tests. Without them
# the whole of scripts/test.sh fits CI's 90 minutes on 2 cores with room to spare.
# Set FABDIAG_SANITIZE_ALL=1 to run them too.
long_walk="a long emulated-cluster walk, run by the normal suite; FABDIAG_SANITIZE_ALL=1 runs it"
excluded=()
if [ "${FABDIAG_SANITIZE_ALL:-0}" != 1 ]; then
  excluded=(
    "integration/nightly_emu_test=$long_walk"
    "integration/triage_uplink_emu_test=$long_walk"
    "integration/triage_emu_test=$long_walk"
    "integration/triage_mild_emu_test=$long_walk"
  )
fi

say() { printf 'test-sanitize: %s\n' "$*"; }

stage_build() {
  local want="-DFABDIAG_SANITIZE=address,undefined -DFABDIAG_FUZZ=ON"
  if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^FABDIAG_SANITIZE:STRING=address,undefined$' "$build/CMakeCache.txt"; then
    say "$build was configured without FABDIAG_SANITIZE=address,undefined; remove it first" >&2
    exit 2
  fi
  FABDIAG_BUILD_DIR=$build FABDIAG_BUILD_TYPE=RelWithDebInfo \
    FABDIAG_CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ $want" \
    bash "$root/scripts/build.sh" >/dev/null
}

# Sanitizer reports of the test run go to files (and so cannot hide in a test that swallows
# stderr or accepts any non-zero exit); each test process writes sanitizer-logs/<kind>.<pid>.
sanitizer_env() {
  local logs=$1
  # intercept_tls_get_addr=0: clang 14's runtime (LLVM < 17) takes a dynamic TLS block for a
  # glibc 2.19 one when tls_beg % 4096 happens to equal that header's size, reads a bogus range
  # and LeakSanitizer's tracer dies with signal 11 at exit ("LeakSanitizer has encountered a
  # fatal error"), at random: Open MPI's dlopened components use dynamic TLS. Known upstream
  # (google/sanitizers#1322, the Mudlet#9930 analysis); the cost is that pointers held only in
  # dynamic TLS are not scanned as roots (a false leak would show, never a missed bug).
  export ASAN_OPTIONS="intercept_tls_get_addr=0:detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:log_path=$logs/asan:log_exe_name=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan:log_exe_name=1"
  # Full malloc stacks (slower): the MPI leaks are told apart only by frames below components
  # that Open MPI dlclosed (tests/sanitize/lsan.supp).
  # Timed steps of the tests (the CLI table's Ctrl-C after S seconds, the deadlines of the
  # partial-results tests, the --watch window) wait longer.
  export FABDIAG_TEST_SLOWDOWN=${FABDIAG_TEST_SLOWDOWN:-3}  # an integer
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
}

stage_ctest() {
  local logs=$build/sanitizer-logs exclude="" t reason
  rm -rf "$logs" && mkdir -p "$logs"
  for t in "${excluded[@]}"; do
    reason=${t#*=}
    t=${t%%=*}
    say "excluded: $t ($reason)"
    exclude+="${exclude:+|}^$t\$"
  done
  local rc=0
  (
    sanitizer_env "$logs"
    cd "$build"
    ctest --output-on-failure -j "$ctest_jobs" ${exclude:+-E "$exclude"}
  ) || rc=$?
  local reports
  reports=$(find "$logs" -type f | sort)
  if [ -n "$reports" ]; then
    say "sanitizer reports written during the tests:" >&2
    local f
    for f in $reports; do
      printf '==== %s\n' "$f" >&2
      head -n 80 "$f" >&2
    done
    rc=1
  fi
  [ "$rc" -eq 0 ] || { say "ctest under the sanitizers failed" >&2; exit 1; }
  say "ctest under the sanitizers passed, no sanitizer report"
}

# The seed kind (scripts/fuzz-corpus.py) each target reads.
seed_kind() {
  case $1 in
    sysfs_counters | sysfs_topo) echo tree ;;
    pci_config) echo config ;;
    module_eeprom) echo module ;;
    ethtool_netlink) echo none ;;   # binary netlink replies: no fixture holds any
    *) echo text ;;
  esac
}

# Seconds a target runs: the sysfs targets build a file tree for every input (about 1 input a
# second under ASan, against thousands for the text readers), so they get three times as long.
# Inputs a target runs at most: the sysfs targets a tenth (a file tree per input).
fuzz_runs_of() {
  case $1 in
    sysfs_*) [ "$fuzz_runs" -lt 0 ] && echo "$fuzz_runs" || echo $((fuzz_runs / 10)) ;;
    *) echo "$fuzz_runs" ;;
  esac
}

fuzz_time() {
  case $1 in
    sysfs_*) echo $((fuzz_seconds * 3)) ;;
    *) echo "$fuzz_seconds" ;;
  esac
}

fuzz_one() {
  local name=$1 kind seeds=() rc=0
  kind=$(seed_kind "$name")
  [ "$kind" = none ] || seeds=("$work/seeds/$kind")
  [ "$name" != module_eeprom ] || seeds+=("$work/seeds/config")
  [ -d "$root/tests/fuzz/regressions/$name" ] && seeds+=("$root/tests/fuzz/regressions/$name")
  mkdir -p "$work/corpus/$name" "$work/artifacts/$name"
  # A hard wall limit: a target that hangs (one seen stuck after libFuzzer's out-of-memory report)
  # fails the stage (exit 124/137) instead of stalling CI.
  ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
    timeout -k 10 "$(($(fuzz_time "$name") + 120))" \
    "$build/tests/fuzz/fuzz_$name" -max_total_time="$(fuzz_time "$name")" -runs="$(fuzz_runs_of "$name")" -seed="$fuzz_seed" -timeout=30 -rss_limit_mb=2048 \
    -max_len=131072 -print_final_stats=1 -artifact_prefix="$work/artifacts/$name/" \
    "$work/corpus/$name" "${seeds[@]}" >"$work/logs/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$work/logs/$name.rc"
}

report_fuzz() {
  local name=$1 rc art
  rc=$(cat "$work/logs/$name.rc")
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/logs/$name.log" | grep -o '[0-9]*$' || echo "?")
  if [ "$rc" -eq 0 ]; then
    say "fuzz_$name: ok ($runs of $(fuzz_runs_of "$name") inputs, within $(fuzz_time "$name")s)"
    return 0
  fi
  say "FUZZ FAILURE: target fuzz_$name exit $rc (log $work/logs/$name.log)" >&2
  for art in "$work/artifacts/$name"/*; do
    [ -e "$art" ] || continue
    say "  input: $art" >&2
    say "  rerun: $build/tests/fuzz/fuzz_$name $art" >&2
    say "  after the fix, keep it: cp $art tests/fuzz/regressions/$name/" >&2
  done
  grep -E -m1 -A40 '^==[0-9]+==ERROR|runtime error:|^==[0-9]+== ERROR|ALARM|out-of-memory' \
    "$work/logs/$name.log" >&2 || tail -n 40 "$work/logs/$name.log" >&2
  return 1
}

stage_fuzz() {
  if [ "$fuzz_seconds" = 0 ]; then
    say "fuzzing skipped (FABDIAG_FUZZ_SECONDS=0)"
    return 0
  fi
  rm -rf "$work" && mkdir -p "$work/logs"
  local cases=()
  [ -d "$root/../shared/cases" ] && cases+=("$root/../shared/cases")
  python3 "$root/scripts/fuzz-corpus.py" "$work/seeds" "${cases[@]}" | sed 's/^/test-sanitize: /'
  local names=() src name
  # The longest (sysfs_*) first, so the others run beside them.
  for src in "$root"/tests/fuzz/sysfs_*_fuzz.cpp "$root"/tests/fuzz/*_fuzz.cpp; do
    name=$(basename "$src" _fuzz.cpp)
    [[ " ${names[*]} " != *" $name "* ]] || continue
    [[ $name =~ $fuzz_targets ]] || continue
    [ -x "$build/tests/fuzz/fuzz_$name" ] || { say "missing fuzz_$name in $build (run the build stage)" >&2; exit 2; }
    names+=("$name")
  done
  say "fuzzing ${#names[@]} targets, ${fuzz_seconds}s each (sysfs_*: $(fuzz_time sysfs_)s), $fuzz_jobs at a time"
  local running=0
  for name in "${names[@]}"; do
    if [ "$running" -ge "$fuzz_jobs" ]; then
      wait -n || true
      running=$((running - 1))
    fi
    fuzz_one "$name" &
    running=$((running + 1))
  done
  wait
  local failed=0
  for name in "${names[@]}"; do
    report_fuzz "$name" || failed=$((failed + 1))
  done
  [ "$failed" -eq 0 ] || { say "$failed fuzz target(s) failed" >&2; exit 1; }
}

for s in "${stages[@]}"; do
  case $s in
    build | ctest | fuzz) ;;
    *) say "unknown stage '$s' (build, ctest, fuzz)" >&2; exit 2 ;;
  esac
  start=$SECONDS
  "stage_$s"
  say "stage $s: $((SECONDS - start)) s wall (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
done
