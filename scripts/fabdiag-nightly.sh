#!/usr/bin/env bash
# fabdiag-nightly.sh: the nightly check of one node, for cron or a systemd timer (docs/nightly.md).
#
#   fabdiag-nightly.sh --state-dir DIR [--textfile-dir DIR] [options] -- BENCH COMMAND...
#
# One night, built on fabdiag's own commands:
#   1. `fabdiag counters --interval WINDOW --format prometheus` runs in the background while
#   2. the bench runs: the command after `--`, any that prints a fabdiag bench, pairwise or triage
#      result, e.g. `fabdiag bench all_reduce --backend nccl -g 8 -b 64M -e 1G -f 2` on a GPU node
#      or `mpirun --hostfile H --map-by node fabdiag pairwise --size 1M -n 2` from a head node
#      (`--format json -o FILE -q` are appended to it);
#   3. `fabdiag baseline diff NAME` compares the run with the median and spread of the last runs
#      (the first night has nothing to compare with and only starts the history); when it raises
#      something at warn or above, the bench runs once more and is diffed again: an alert is a
#      finding (code and subject) both runs raise, and the second run is the night's result;
#   4. `fabdiag baseline save --append NAME`, only when the diff raised nothing at warn or above
#      (a bad night is kept under runs/ but never becomes the reference);
#   5. the counters, the diff and this script's own gauges go to TEXTFILE_DIR/fabdiag-nightly.prom
#      for node_exporter's textfile collector, written atomically (a temporary dot-file in the same
#      directory, then rename(2)).
#
# Options:
#   --state-dir DIR      required: baselines/ (the store), runs/<UTC stamp>/ (each night's files), lock
#   --textfile-dir DIR   node_exporter's --collector.textfile.directory (default: no textfile)
#   --name NAME          baseline name (default: nightly)
#   --window S           counter window in seconds, should outlast the bench (default: 60)
#   --keep N             runs kept in the history and under runs/ (default: 30)
#   --last K, --tolerance F, --spread-k k   passed to `baseline diff` (defaults 7, 0.10, 3.5)
#   --no-confirm         alert on the first bench's diff, without a confirming run
#   --counters-arg ARG   one more argument for `fabdiag counters` (repeatable: --device, --sysfs-root)
#   --fabdiag BIN        the fabdiag binary (default: fabdiag in PATH, else next to this script's build/)
#   -v                   print the night's summary also when healthy (cron mails any output)
#
# Exit codes: 0 healthy (also the first night); 1 an alert: a baseline finding at warn or above
# (a regression rolled up to its node, link or collective, or drift at warn) or a counter finding
# at warn or above in the window (a regression the confirming run does not repeat is no alert:
# fabdiag_nightly_unconfirmed_alerts counts them); 4 a gap and no alert: the bench or the counters gave no result,
# the diff compared only part, the textfile could not be written, a previous night still holds
# the lock; 2 usage. A healthy night prints nothing (cron mails nothing); an alert prints the
# diff and the alerts on stdout.
set -u

usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; }
die_usage() { echo "fabdiag-nightly: error: $*" >&2; exit 2; }

state="" textfile_dir="" name=nightly window=60 keep=30 last=7 tolerance=0.10 spread_k=3.5 verbose=0
fabdiag_bin="" counters_args=() bench=() confirm=1
while (($#)); do
  case $1 in
    --state-dir) state=${2:-}; shift 2 || die_usage "--state-dir needs a value" ;;
    --textfile-dir) textfile_dir=${2:-}; shift 2 || die_usage "--textfile-dir needs a value" ;;
    --name) name=${2:-}; shift 2 || die_usage "--name needs a value" ;;
    --window) window=${2:-}; shift 2 || die_usage "--window needs a value" ;;
    --keep) keep=${2:-}; shift 2 || die_usage "--keep needs a value" ;;
    --last) last=${2:-}; shift 2 || die_usage "--last needs a value" ;;
    --tolerance) tolerance=${2:-}; shift 2 || die_usage "--tolerance needs a value" ;;
    --spread-k) spread_k=${2:-}; shift 2 || die_usage "--spread-k needs a value" ;;
    --counters-arg) counters_args+=("${2:-}"); shift 2 || die_usage "--counters-arg needs a value" ;;
    --fabdiag) fabdiag_bin=${2:-}; shift 2 || die_usage "--fabdiag needs a value" ;;
    --no-confirm) confirm=0; shift ;;
    -v) verbose=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; bench=("$@"); break ;;
    *) die_usage "unknown option '$1' (see --help)" ;;
  esac
done
[ -n "$state" ] || die_usage "--state-dir DIR is required"
[[ $keep =~ ^[1-9][0-9]*$ ]] || die_usage "--keep must be a positive integer, not '$keep'"
[[ $window =~ ^[0-9]+([.][0-9]+)?$ ]] || die_usage "--window must be seconds, not '$window'"
if [ -z "$fabdiag_bin" ]; then
  fabdiag_bin=$(command -v fabdiag || true)
  here=$(cd "$(dirname "$0")/.." && pwd)
  [ -n "$fabdiag_bin" ] || fabdiag_bin=$here/build/fabdiag
fi
[ -x "$fabdiag_bin" ] || die_usage "no fabdiag binary at '$fabdiag_bin' (give --fabdiag BIN)"
((${#bench[@]})) || die_usage "give the bench after --, e.g. -- fabdiag bench all_reduce --backend nccl -g 8 -b 64M -e 1G -f 2"
mkdir -p "$state/runs" "$state/baselines" || die_usage "cannot create $state/runs and $state/baselines"
if [ -n "$textfile_dir" ] && [ ! -d "$textfile_dir" ]; then die_usage "--textfile-dir $textfile_dir is not a directory"; fi

exec 9>"$state/lock" || die_usage "cannot open $state/lock"
if ! flock -n 9; then echo "fabdiag-nightly: a previous night still holds $state/lock; not started" >&2; exit 4; fi

started=$(date -u +%s)
run=$state/runs/$(date -u +%Y%m%dT%H%M%SZ)
[ -e "$run" ] && run=$run-$$
mkdir -p "$run" || exit 4
store=(--store "$state/baselines")
gaps=() alerts=()

# 1+2: the counter window around the bench.
"$fabdiag_bin" counters --interval "$window" --all --format prometheus -q -o "$run/counters.prom" \
  "${counters_args[@]}" >"$run/counters.log" 2>&1 &
counters_pid=$!
"${bench[@]}" --format json -q -o "$run/bench.json" >"$run/bench.log" 2>&1
bench_rc=$?
kill -0 "$counters_pid" 2>/dev/null || gaps+=("the bench outlasted the counter window (--window $window)")
wait "$counters_pid"
counters_rc=$?
case $counters_rc in
  0) ;;
  1) alerts+=("counters: $(awk '/^fabdiag_counters_findings\{severity="(warn|error|critical)"\}/ {n += $2} END {print n+0}' \
       "$run/counters.prom") finding(s) at warn or above in the ${window} s window ($run/counters.prom; fabdiag counters --interval $window shows them)") ;;
  *) gaps+=("counters exited $counters_rc ($run/counters.log)") ;;
esac
[ -s "$run/bench.json" ] || gaps+=("the bench gave no result (exit $bench_rc, $run/bench.log)")

# 3+4: the diff against the history (an alert confirmed by a second bench), then the append.
# diff_into DIR: DIR/bench.json against the history into DIR/diff.json, baseline.prom, diff.txt.
diff_into() {
  local args=(baseline diff "$name" "$1/bench.json" "${store[@]}" --last "$last" --tolerance "$tolerance"
    --spread-k "$spread_k" -q) r
  "$fabdiag_bin" "${args[@]}" --format json -o "$1/diff.json" 2>"$1/diff.log"
  r=$?
  "$fabdiag_bin" "${args[@]}" --format prometheus -o "$1/baseline.prom" 2>>"$1/diff.log"
  "$fabdiag_bin" "${args[@]}" --format table >"$1/diff.txt" 2>>"$1/diff.log"
  return $r
}
# alert_keys FILE: "code subject" of each fabdiag_baseline_alert sample of FILE, sorted.
alert_keys() {
  sed -n 's/^fabdiag_baseline_alert{code="\([^"]*\)",severity="[^"]*",subject="\([^"]*\)"} 1$/\1 \2/p' "$1" | sort -u
}
appended=0 diff_rc=none judged=$run unconfirmed=0
if [ -s "$run/bench.json" ]; then
  if "$fabdiag_bin" baseline show "$name" "${store[@]}" --format json -q >/dev/null 2>&1; then
    diff_into "$run"
    diff_rc=$?
    if [ "$diff_rc" = 1 ] && ((confirm)); then
      # Like triage's confirmation: a drop that does not come back on a second run is noise (a
      # busy node, a neighbour's job), not a regression. Alerts are the findings of both runs.
      mkdir -p "$run/confirm"
      "${bench[@]}" --format json -q -o "$run/confirm/bench.json" >"$run/confirm/bench.log" 2>&1
      if [ -s "$run/confirm/bench.json" ]; then
        diff_into "$run/confirm"
        diff_rc=$?
        judged=$run/confirm
        both=$(comm -12 <(alert_keys "$run/baseline.prom") <(alert_keys "$judged/baseline.prom"))
        unconfirmed=$(comm -23 <(alert_keys "$run/baseline.prom") <(printf '%s\n' "$both" | sed '/^$/d') | wc -l)
        # Keep only the confirmed alert samples in the textfile.
        awk -v keep="$both" 'BEGIN { n = split(keep, k, "\n"); for (i = 1; i <= n; i++) ok[k[i]] = 1 }
          /^fabdiag_baseline_alert\{/ { match($0, /code="[^"]*"/); c = substr($0, RSTART + 6, RLENGTH - 7)
            match($0, /subject="[^"]*"/); s = substr($0, RSTART + 9, RLENGTH - 10); if (!((c " " s) in ok)) next }
          { print }' "$judged/baseline.prom" >"$judged/baseline.prom.confirmed" &&
          mv -f "$judged/baseline.prom.confirmed" "$judged/baseline.prom"
        [ "$diff_rc" = 1 ] && [ -z "$both" ] && diff_rc=0
      else
        gaps+=("the confirming bench gave no result ($run/confirm/bench.log); the first run's alerts stand")
      fi
    fi
    case $diff_rc in
      0) ;;
      1) while IFS= read -r line; do alerts+=("baseline: $line"); done < <(sed -n \
           's/^fabdiag_baseline_alert{code="\([^"]*\)",severity="\([^"]*\)",subject="\([^"]*\)"} 1$/\2 \1 \3/p' \
           "$judged/baseline.prom") ;;
      4) gaps+=("the diff compared only part ($judged/diff.json errors[])") ;;
      *) gaps+=("baseline diff exited $diff_rc ($judged/diff.log)") ;;
    esac
  fi
  if [ "$diff_rc" != 1 ]; then
    if "$fabdiag_bin" baseline save --append "$name" "$judged/bench.json" "${store[@]}" --keep "$keep" -q \
      --format json -o "$run/save.json" 2>"$run/save.log"; then appended=1
    else gaps+=("baseline save --append failed ($run/save.log)"); fi
  fi
fi

rc=0
((${#gaps[@]})) && rc=4
((${#alerts[@]})) && rc=1

# 5: the textfile, atomically.
write_textfile() {
  local tmp=$textfile_dir/.fabdiag-nightly.prom.$$
  {
    [ -s "$run/counters.prom" ] && cat "$run/counters.prom"
    [ -s "$judged/baseline.prom" ] && cat "$judged/baseline.prom"
    printf '# HELP fabdiag_nightly_exit_code Exit code of the last nightly check (0 healthy, 1 alert, 4 gap)\n'
    printf '# TYPE fabdiag_nightly_exit_code gauge\nfabdiag_nightly_exit_code %d\n' "$rc"
    printf '# HELP fabdiag_nightly_alerts Alerts of the last nightly check (baseline and counter findings at warn or above)\n'
    printf '# TYPE fabdiag_nightly_alerts gauge\nfabdiag_nightly_alerts %d\n' "${#alerts[@]}"
    printf '# HELP fabdiag_nightly_gaps What the last nightly check could not do\n'
    printf '# TYPE fabdiag_nightly_gaps gauge\nfabdiag_nightly_gaps %d\n' "${#gaps[@]}"
    printf '# HELP fabdiag_nightly_unconfirmed_alerts Baseline alerts of the first bench that its confirming run did not repeat\n'
    printf '# TYPE fabdiag_nightly_unconfirmed_alerts gauge\nfabdiag_nightly_unconfirmed_alerts %d\n' "$unconfirmed"
    printf '# HELP fabdiag_nightly_appended 1 when the last run was added to the baseline history\n'
    printf '# TYPE fabdiag_nightly_appended gauge\nfabdiag_nightly_appended %d\n' "$appended"
    printf '# HELP fabdiag_nightly_last_run_timestamp_seconds Start of the last nightly check, Unix time\n'
    printf '# TYPE fabdiag_nightly_last_run_timestamp_seconds gauge\nfabdiag_nightly_last_run_timestamp_seconds %d\n' "$started"
    printf '# HELP fabdiag_nightly_duration_seconds Wall time of the last nightly check\n'
    printf '# TYPE fabdiag_nightly_duration_seconds gauge\nfabdiag_nightly_duration_seconds %d\n' "$(($(date -u +%s) - started))"
  } >"$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$textfile_dir/fabdiag-nightly.prom" || { rm -f "$tmp"; return 1; }
}
if [ -n "$textfile_dir" ] && ! write_textfile; then
  gaps+=("cannot write $textfile_dir/fabdiag-nightly.prom"); ((rc == 0)) && rc=4
fi

# Retention of the night folders (the history keeps its own --keep).
mapfile -t nights < <(find "$state/runs" -mindepth 1 -maxdepth 1 -type d | sort)
for ((i = 0; i + keep < ${#nights[@]}; i++)); do rm -rf -- "${nights[$i]}"; done

if ((rc != 0 || verbose)); then
  echo "fabdiag-nightly: $(hostname) exit $rc: ${#alerts[@]} alert(s), ${#gaps[@]} gap(s), run $run, appended $appended"
  for a in "${alerts[@]}"; do echo "ALERT $a"; done
  for g in "${gaps[@]}"; do echo "GAP $g"; done
  ((${#alerts[@]})) && [ -s "$judged/diff.txt" ] && cat "$judged/diff.txt"
fi
exit "$rc"
