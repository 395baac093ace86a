// `fabdiag counters --watch`: a refreshing view of per-second rates and the top movers.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "cmd/counters_views.h"
#include "core/clock.h"
#include "core/envelope.h"
#include "core/interrupt.h"
#include "core/exit_codes.h"
#include "probes/counters/counter_movers.h"
#include "collect/counter_pipeline.h"
#include "report/humanize.h"
#include "report/render.h"

namespace fabdiag::cmd {
namespace {

// SIGINT/SIGTERM are caught (core/interrupt.h) instead of killing the process, so the
// terminal is restored; the loops look at the record.

// Sleeps until `deadline_s` (Clock::monotonic_s) in short steps; false when a signal asked to stop.
bool sleep_until(const Clock& clock, const InterruptScope& interrupts, double deadline_s) {
  while (!interrupts.pending()) {
    double now_s = clock.monotonic_s();
    if (now_s >= deadline_s) return true;
    clock.sleep_s(std::min(deadline_s - now_s, 0.05));
  }
  return false;
}

void write_out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

std::string frame(const CountersOptions& o, int refresh, double window_s, const Snapshot& cur,
                  const SnapshotDelta& delta, std::optional<CounterCategory> only, size_t gaps_failed,
                  bool tty) {
  Document doc;
  doc.title = "fabdiag counters --watch: refresh " + std::to_string(refresh) +
              (o.count ? " of " + std::to_string(o.count) : "") + ", window " +
              format_sig(window_s, 3) + " s, " + cur.taken_at + (tty ? "  (Ctrl-C to stop)" : "");
  size_t moved = 0;
  for (const auto& c : delta.changes)
    if (c.delta && *c.delta > 0 && (!only || c.counter.category == *only)) ++moved;
  auto movers = rank_movers(delta.changes, only, static_cast<size_t>(o.top));
  Section s;
  s.title = "top movers" + std::string(only ? " (" + std::string(to_string(*only)) + ")" : "");
  s.fields.emplace_back("shown", std::to_string(movers.size()) + " of " + std::to_string(moved) +
                                     " moving counters; health signals first, then traffic");
  Table t;
  t.columns = {"DEVICE", "COUNTER", "SRC", "CATEGORY", "RATE", "DELTA"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight};
  for (const CounterChange* c : movers)
    t.rows.push_back({c->counter.device, c->counter.name, counter_short_group(c->counter.group),
                      to_string(c->counter.category), fmt_counter_rate(*c), fmt_counter_delta(*c)});
  if (t.rows.empty()) s.lines.push_back("  no counter moved in this window");
  else s.tables.push_back(t);
  doc.sections.push_back(s);

  Section fs;
  // The same interpretation as a one-shot run: one finding per symptom and link.
  auto findings =
      interpret_observation(CounterObservation{cur.ports, delta.changes, window_s, {}, cur.links, cur.optics}).findings;
  fs.title = "findings in this window";
  for (const auto& f : findings)
    fs.lines.push_back("  " + std::string(to_string(f.severity)) + " " + f.code + " " + f.subject +
                       ": " + f.message);
  if (findings.empty()) fs.lines.push_back("  none");
  if (gaps_failed)
    fs.lines.push_back("  (" + std::to_string(gaps_failed) +
                       " source(s) could not be read; run without --watch for the list)");
  doc.sections.push_back(fs);

  // The table renderer also prints findings and errors from an envelope; this view lists its
  // own short lines, so it renders with an empty envelope and drops the trailing block.
  std::string text = render_table(Envelope{}, doc);
  auto cut = text.rfind("FINDINGS\n  none\n");
  if (cut != std::string::npos) text.erase(cut);
  while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

}  // namespace

int run_counters_watch(const GlobalOptions& g, const CountersOptions& o, const FsRoot& fs,
                       const CounterReadOptions& ro, std::optional<CounterCategory> only,
                       Snapshot first) {
  const double interval_s = o.interval_s > 0 ? o.interval_s : 1.0;
  const bool tty = isatty(STDOUT_FILENO) == 1;
  InterruptScope interrupts;
  if (tty) write_out("\x1b[?25l");  // hide the cursor while redrawing
  else if (!g.quiet)
    std::fprintf(stderr, "fabdiag: watching every %s s; stdout is not a terminal, appending blocks\n",
                 format_sig(interval_s, 3).c_str());
  const Clock& clock = ro.clock ? *ro.clock : real_clock();
  Snapshot prev = std::move(first);
  double next_s = clock.monotonic_s();
  int refresh = 0;
  while (!interrupts.pending()) {
    next_s += interval_s;
    if (!sleep_until(clock, interrupts, next_s)) break;
    Snapshot cur = read_counter_snapshot(fs, ro);
    double window_s = cur.monotonic_s - prev.monotonic_s;
    SnapshotDelta delta = compute_delta(prev, cur, window_s);
    size_t failed = 0;
    for (const auto& e : cur.gaps)
      if (is_failure(e)) ++failed;
    ++refresh;
    std::string text = frame(o, refresh, window_s, cur, delta, only, failed, tty);
    if (tty) write_out("\x1b[H\x1b[2J" + text);
    else write_out((refresh > 1 ? "\n" : "") + text);
    prev = std::move(cur);
    if (o.count > 0 && refresh >= o.count) break;
    // A slow read must not make the next window start in the past (no catch-up bursts).
    next_s = std::max(next_s, clock.monotonic_s());
  }
  if (tty) write_out("\x1b[?25h\n");  // cursor back, prompt on a fresh line
  return kExitOk;
}

}  // namespace fabdiag::cmd
