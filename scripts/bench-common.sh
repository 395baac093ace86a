# Sourced by the memory benchmarks (scripts/bench-import-memory.sh, scripts/bench-report-memory.sh):
# what both check before they run and the temporary directory both work in.

# bench_check NAME BIN: exit 2 unless BIN is an executable fabdiag and GNU time is installed.
bench_check() {
  [ -x "$2" ] || { echo "$1: no fabdiag at $2 (build it, or give --bin)" >&2; exit 2; }
  [ -x /usr/bin/time ] || { echo "$1: /usr/bin/time missing (run scripts/setup.sh)" >&2; exit 2; }
}

# bench_tmpdir NAME PARENT: sets t to a new directory under PARENT, removed when the script exits.
bench_tmpdir() {
  t=$(mktemp -d "$2/fabdiag-$1.XXXXXX")
  trap 'rm -rf "$t"' EXIT
}
