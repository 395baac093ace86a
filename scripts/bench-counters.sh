#!/usr/bin/env bash
# Benchmark (not a test) of a full counter snapshot of a node with 8 RDMA NICs against
# docs/ARCHITECTURE.md's targets (< 20 ms, < 64 MiB resident), measured on the COMMAND a user
# runs (`fabdiag counters --sysfs-root NODE --format F > /dev/null`, process start to exit),
# for each output format, side by side with `cat` of the same files (the floor: reading every
# counter file once) and with the in-process snapshot loop. Peak RSS is GNU time's (%M, the
# largest of the runs under it): wait4's ru_maxrss of a child spawned by python is python's own
# RSS when that is larger (the kernel carries the parent's peak over the exec).
# Wall time is the target; CPU time (user + sys of the process from wait4's rusage, medians) is
# printed next to it because on a loaded machine (other builds) wall time is mostly waiting for
# a core: there the target is judged on CPU time.
#
#   scripts/bench-counters.sh [--build DIR] [--bin FABDIAG --node DIR] [--runs N] [--nics N] [--channels C] [--callgrind]
#
# --build DIR: any configured build tree that has (or can build) fabdiag and
# fabdiag_bench_counters (default: $FABDIAG_BUILD_DIR or ./build). The fixture node is generated
# by fabdiag_bench_counters --keep. --bin FABDIAG --node DIR: time that binary on that fixture
# (one kept by an earlier run: fabdiag_bench_counters --keep DIR), building nothing. --callgrind: also count each format's instructions once
# under valgrind --tool=callgrind (the figure that does not move with the load). The last lines
# are the verdict per format: its CPU time and peak RSS as ratios to the targets, met or MISSED.
# Exit: 0 both targets met (wall time) by every format, 1 a target missed.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${FABDIAG_BUILD_DIR:-$src/build}
runs=15 nics=8 channels=16 callgrind=0 bin="" node=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --node) node=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --nics) nics=$2; shift 2 ;;
    --channels) channels=$2; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    -h|--help) sed -n 2,23p "$0"; exit 0 ;;
    *) echo "bench-counters: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench-counters: /usr/bin/time (GNU time) missing: it gives the peak RSS (scripts/setup.sh installs it)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
if [ -n "$bin" ] || [ -n "$node" ]; then
  [ -x "$bin" ] && [ -d "$node" ] || { echo "bench-counters: --bin and --node go together (an executable, a fixture directory)" >&2; exit 2; }
else
  if [ ! -f "$build/CMakeCache.txt" ]; then
    FABDIAG_BUILD_DIR=$build FABDIAG_BUILD_TARGET=fabdiag bash "$src/scripts/build.sh" >/dev/null
  fi
  cmake --build "$build" --target fabdiag fabdiag_bench_counters -j "$(nproc)" >/dev/null
  bin=$build/fabdiag node=$t/node
  echo "in-process snapshot loop (fabdiag_bench_counters):"
  { "$build/fabdiag_bench_counters" --nics "$nics" --channels "$channels" --keep "$node" || true; } | sed 's/^/  /'
fi
if [ "$callgrind" = 1 ] && ! command -v valgrind >/dev/null; then
  echo "bench-counters: --callgrind needs valgrind (apt-get install valgrind)" >&2; exit 2
fi
python3 - "$bin" "$node" "$runs" "$callgrind" <<'PY'
import os, re, subprocess, sys, tempfile, time, statistics
fabdiag, node, runs, callgrind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
files = [os.path.join(d, f) for d, _, fs in os.walk(node) for f in fs]
def peak_rss_mib(argv, tries=3):
    # GNU time forks the command from its own small process: %M is the command's peak.
    peak = 0.0
    with tempfile.NamedTemporaryFile() as out:
        for _ in range(tries):
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out.name) as f:
                peak = max(peak, int(f.read().split()[-1]) / 1024.0)  # KiB -> MiB
    return peak
def run_once(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, ru.ru_utime, ru.ru_stime
def measure_all(argvs, warmup=3):
    # Interleaved run by run (cat, json, table, prometheus, cat, ...), after `warmup` unmeasured
    # rounds: a machine that warms up or drifts (the first second of a batch here costs every
    # command up to a third more, cat included) moves every row alike, so the ratios hold.
    for _ in range(warmup):
        for argv in argvs:
            run_once(argv)
    samples = [[] for _ in argvs]
    for _ in range(runs):
        for i, argv in enumerate(argvs):
            samples[i].append(run_once(argv))
    med = lambda xs: statistics.median(xs) * 1e3
    out = []
    for argv, ss in zip(argvs, samples):
        out.append((med([s[0] for s in ss]), med([s[1] + s[2] for s in ss]), med([s[1] for s in ss]),
                    med([s[2] for s in ss]), peak_rss_mib(argv)))
    return out
formats = ["json", "table", "prometheus"]
fmt_argv = {fmt: [fabdiag, "counters", "-q", "--sysfs-root", node, "--format", fmt] for fmt in formats}
load_at_start = os.getloadavg()[0]
measured = measure_all([["cat"] + files] + [fmt_argv[f] for f in formats])
print(f"load average at the start: {load_at_start:.2f} (1 min)")
(cat_ms, cat_cpu, cat_user, cat_sys, cat_mib) = measured[0]
print(f"command (median of {runs} runs each, interleaved after 3 warm-up rounds, {len(files)} files under "
      f"the node; cpu = user + sys of the process; peak RSS from GNU time):")
print(f"  {'cat of the same files':34s} wall {cat_ms:6.1f} ms  cpu {cat_cpu:6.1f} ms "
      f"(user {cat_user:5.1f}, sys {cat_sys:5.1f}) {cat_mib:6.1f} MiB")
def instructions(argv):
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out"] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    return int(m.group(1)) if m else None
ok = True
verdicts = []
for fmt, (ms, cpu, user, sys_, mib) in zip(formats, measured[1:]):
    argv = fmt_argv[fmt]
    met = ms < 20 and mib < 64
    cpu_met = cpu < 20 and mib < 64
    ok = ok and met
    print(f"  fabdiag counters --format {fmt:10s} wall {ms:6.1f} ms  cpu {cpu:6.1f} ms "
          f"(user {user:5.1f}, sys {sys_:5.1f}) {mib:6.1f} MiB   x{cpu / max(cat_cpu, 1e-3):4.1f} cat cpu, "
          f"x{ms / max(cat_ms, 1e-3):4.1f} cat wall, x{mib / max(cat_mib, 1e-3):4.1f} cat rss; "
          f"target 20 ms / 64 MiB: wall {ms / 20:4.2f} {'met' if met else 'MISSED'}, "
          f"cpu {cpu / 20:4.2f} {'met' if cpu_met else 'MISSED'}, rss {mib / 64:4.2f}")
    ir = instructions(argv) if callgrind else None
    verdicts.append((fmt, cpu, mib, cpu_met, ir))
print("verdict per format (target < 20 ms CPU and < 64 MiB peak RSS, judged on CPU time):")
for fmt, cpu, mib, cpu_met, ir in verdicts:
    irs = f", {ir / 1e6:5.1f}M instructions" if ir else ""
    print(f"  {fmt:10s} cpu {cpu:5.1f} ms = {cpu / 20:4.2f} x target, rss {mib:5.1f} MiB = "
          f"{mib / 64:4.2f} x target{irs}: {'met' if cpu_met else 'MISSED'}")
sys.exit(0 if ok else 1)
PY
