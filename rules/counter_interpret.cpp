#include "rules/counter_interpret.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <unordered_set>

#include "rules/counter_links.h"
#include "rules/counter_rules.h"
#include "rules/counter_signals.h"
#include "rules/optics.h"
#include "rules/symptom.h"

namespace fabdiag {
namespace {

using S = Severity;

// Heuristics; their reasons: docs/thresholds.md#pause-and-pfc-storms (paused share),
// docs/thresholds.md#fec-and-pre-fec-ber (BER, lanes), docs/thresholds.md#congestion-ecn-and-cnp
// (marked share).
constexpr double kShareWarn = 0.01, kShareError = 0.05;  // paused share of the window
constexpr double kBerWarn = 1e-6, kBerError = 1e-5;      // pre-FEC BER, inside the FEC margin
constexpr double kLaneRatio = 10;                        // worst lane / next worst lane
constexpr uint64_t kLaneMinBits = 100;  // below this a lane ratio is noise (heuristic)
constexpr double kMarkedWarn = 0.01;                     // ECN-marked / received RoCE packets

std::string fmt(double v, const char* f = "%.3g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string pct(double share) { return fmt(share * 100, share * 100 >= 10 ? "%.0f" : "%.2g") + " %"; }

// One symptom of one link being assembled.
struct Pending {
  Symptom symptom = Symptom::kPfcStorm;
  size_t link = 0;
  Severity severity = S::kInfo;
  std::vector<const Finding*> parts;  // raw findings merged in
  std::vector<Evidence> extra;        // computed evidence
  std::vector<std::string> notes;     // computed message parts (the first is the figure)
  std::vector<std::string> context;   // message parts that only give context (never the figure)
  bool emitted = false;
};

// A finding ready for output, with the link it is summarized under and its summary headline.
struct Emitted {
  size_t link;
  Finding finding;
  std::string headline;
};

constexpr size_t kNoLink = static_cast<size_t>(-1);  // an optics finding: summarized with its module

Evidence ev(std::string metric, std::optional<double> value, std::string unit,
            std::optional<double> threshold, std::string threshold_text, std::string source,
            std::string value_text = {}) {
  Evidence e;
  e.metric = std::move(metric);
  e.value = value;
  e.unit = std::move(unit);
  e.threshold = threshold;
  e.threshold_text = std::move(threshold_text);
  e.source = std::move(source);
  e.value_text = std::move(value_text);
  return e;
}

// The "name +delta, ..." list of a rule finding's message ("<what>: <items> in 10 s").
std::string items_of(const Finding& f) {
  size_t colon = f.message.find(": ");
  if (colon == std::string::npos) return {};
  std::string rest = f.message.substr(colon + 2);
  for (const char* cut : {" in ", " since the counters", " between the snapshots"}) {
    size_t at = rest.rfind(cut);
    if (at != std::string::npos) return rest.substr(0, at);
  }
  return rest;
}

std::string prio_text(int prio) { return prio < 0 ? "global pause" : "prio " + std::to_string(prio); }

std::optional<double> pfc_share(const LinkSignals& s) {
  if (s.pause_shares.empty()) return std::nullopt;
  return s.pause_shares.front().share;
}

// The summary headline of a finding that passes through unchanged.
std::string pass_through_headline(const Finding& f) {
  if (f.code == "counter_saturated") {
    std::string names;
    for (const auto& e : f.evidence) names += (names.empty() ? "" : ", ") + e.metric;
    return "saturated counter(s) on " + f.subject + " (" + names + ": at least the value shown)";
  }
  if (f.code == "counter_set_changed") return "counter set changed on " + f.subject + " (no delta for those)";
  if (f.code == "counter_reset") return "counters reset on " + f.subject + " (no delta for those)";
  if (f.code == "xmit_wait") return "port_xmit_wait rising on " + f.subject + " (waiting for credits)";
  std::string h = f.message.substr(0, f.message.find(": "));
  if (h.find(" on ") == std::string::npos) h += " on " + f.subject;
  return h;
}

// Drops from a counter_saturated finding the counters already shown in a symptom; false when
// none is left (the finding is not emitted).
bool trim_saturated(Finding& f, const std::set<std::pair<std::string, std::string>>& covered) {
  std::vector<Evidence> keep;
  std::string list;
  for (const auto& e : f.evidence) {
    if (covered.count({f.subject, e.metric})) continue;
    keep.push_back(e);
    list += (list.empty() ? "" : ", ") + e.metric + " >= " + fmt(*e.value, "%.0f");
  }
  if (keep.empty()) return false;
  f.evidence = keep;
  f.message = "counter maxed out, the true count is at least: " + list;
  return true;
}

// One line per optical module: its finding's message, else its summary.
PortSummary optics_port_summary(const ModuleDiagnostics& m) {
  PortSummary ps;
  ps.subject = "optics " + m.netdev;
  ps.line = "optics " + optics_summary(m);
  if (auto f = optics_finding(m)) {
    ps.worst = f->severity;
    ps.healthy = f->severity < S::kWarn;
    ps.line = f->message;
  }
  return ps;
}

// The PFC counters, the traffic priority and its average frame behind a lossy_roce finding.
void add_lossy_roce_evidence(Pending& p, const CounterLink& link, const LinkSignals& s) {
  std::string pfc = s.pfc_prios.empty() ? "none" : "";
  for (int q : s.pfc_prios) pfc += (pfc.empty() ? "prio " : ", ") + std::to_string(q);
  p.extra.push_back(ev("per-priority pause (PFC) counters on " + link.netdev, std::nullopt, "",
                       std::nullopt,
                       "RoCE needs PFC on its priority, or ECN/DCQCN tuned for lossy "
                       "operation (docs/thresholds.md#lossy-roce: lossy queue, PFC off or wrong TC)",
                       "ethtool statistics of " + link.netdev, pfc));
  p.notes.push_back(s.pfc_prios.empty() ? "no PFC counters on any priority and no pause seen"
                                        : "no PFC counter for the traffic priority");
  if (s.traffic_prio) {
    p.extra.push_back(ev("RoCE traffic priority (most packets)", *s.traffic_prio, "priority",
                         std::nullopt, "", "ethtool statistics of " + link.netdev,
                         std::to_string(s.traffic_prio_packets) + " packets"));
    p.notes.push_back("traffic on priority " + std::to_string(*s.traffic_prio));
  }
  if (s.rx_avg_frame_bytes) {
    std::string both = "rx " + fmt(*s.rx_avg_frame_bytes, "%.0f") +
                       (s.tx_avg_frame_bytes ? ", tx " + fmt(*s.tx_avg_frame_bytes, "%.0f") : "");
    p.extra.push_back(ev("average frame on priority " + std::to_string(*s.traffic_prio),
                         *s.rx_avg_frame_bytes, "bytes", std::nullopt,
                         "~1078 bytes = a 1024-byte RoCE MTU plus headers (derived)",
                         "ethtool statistics of " + link.netdev, both + " bytes"));
    p.notes.push_back("average frame " + fmt(*s.rx_avg_frame_bytes, "%.0f") + " bytes");
  }
}

// Whether a raw finding merged into a symptom already has `counter_name` as evidence.
bool judged_in_a_symptom(const std::vector<Pending>& pendings, const std::string& counter_name) {
  bool judged = false;
  for (const auto& q : pendings)
    for (const Finding* r : q.parts)
      for (const auto& e : r->evidence) judged = judged || e.metric.rfind(counter_name + " ", 0) == 0;
  return judged;
}

std::string pfc_headline(const Pending& p, const LinkSignals& s, const std::string& subject) {
  bool storm_events = false;
  for (const Finding* f : p.parts) storm_events = storm_events || f->code == "pause_storm";
  std::string where = subject;
  if (!s.pause_shares.empty()) where = s.pause_shares.front().device;
  bool storm = p.severity >= S::kError || storm_events;
  std::string h = (storm                    ? "PFC storm on "
                   : p.severity >= S::kWarn ? "heavy PFC pause on "
                                            : "flow control at work on ") +
                  where;
  if (auto share = pfc_share(s))
    h += " " + prio_text(s.pause_shares.front().prio) + ": " +
         (s.pause_shares.front().rx ? "paused " : "pausing its peer ") + pct(*share) +
         " of the window";
  if (storm_events) h += (pfc_share(s) ? "; " : ": ") + std::string("the NIC stopped honouring pause");
  return h;
}

std::string lossy_roce_headline(const CounterLink& link, const LinkSignals& s) {
  uint64_t timeouts = 0;
  for (const CounterChange* ch : link.changes)
    if (ch->counter.canonical == "local_ack_timeout_err") timeouts += change_amount(*ch).value_or(0);
  std::string h = "lossy RoCE on " + link.label + ": " +
                  (timeouts ? std::to_string(timeouts) + " ack timeouts" : std::string("RDMA loss")) +
                  " and no PFC";
  if (s.traffic_prio) h += " on priority " + std::to_string(*s.traffic_prio);
  return h;
}

// What interpret_counters() reads, held by the caller.
struct InputView {
  const std::vector<PortInfo>& ports;
  const std::vector<CounterChange>& changes;
  std::optional<double> window_s;
  const std::vector<ModuleDiagnostics>& optics;
};

class Interpreter {
 public:
  explicit Interpreter(const InputView& in) : in_(in), links_(group_counter_links(in.ports, in.changes)) {}

  CounterInterpretation run();

 private:
  // Index of the pending symptom (link, symptom), created when absent. Indexes, not references:
  // the vector grows.
  size_t pending_index(size_t link, Symptom symptom) {
    for (size_t i = 0; i < pendings_.size(); ++i)
      if (pendings_[i].link == link && pendings_[i].symptom == symptom) return i;
    Pending p;
    p.symptom = symptom;
    p.link = link;
    pendings_.push_back(std::move(p));
    return pendings_.size() - 1;
  }
  Pending& pending(size_t link, Symptom symptom) { return pendings_[pending_index(link, symptom)]; }

  // Steps of run(), in order.
  void group_raw_findings();
  void add_computed(size_t li, const LinkSignals& s);
  void add_pause_shares(size_t li, const LinkSignals& s);
  void add_pre_fec_ber(size_t li, const LinkSignals& s);
  void add_lane_imbalance(size_t li, const LinkSignals& s);
  void add_ecn_share(size_t li, const LinkSignals& s);
  void add_pinned_symbol_errors(size_t li);
  void mark_lossy_roce();
  void add_phy_context();
  void judge_log_carrier_losses();
  std::set<std::pair<std::string, std::string>> covered_counters() const;
  std::vector<Emitted> emit();
  std::vector<PortSummary> summarize(const std::vector<Emitted>& emitted) const;
  void count_unknown(CounterInterpretation& out) const;

  // The finding and its one-line headline for the port summary.
  std::pair<Finding, std::string> assemble(const Pending& p, const LinkSignals& s) const;
  // "physical-layer degradation on X" (+ ": <first figure>" when `figure`).
  std::string headline(const Pending& p, const LinkSignals& s, const std::string& subject,
                       bool figure) const;

  const InputView in_;
  CounterLinks links_;
  std::vector<LinkSignals> signals_;        // per link
  std::vector<Finding> raw_;
  std::vector<std::pair<size_t, int>> order_;  // (raw index, pending index or -1), raw order
  std::vector<Pending> pendings_;
  std::map<size_t, Evidence> ber_context_;  // link -> a BER within limits (context evidence)
};

// Raw findings into symptoms; the others pass through (order_ keeps the raw order).
void Interpreter::group_raw_findings() {
  for (size_t i = 0; i < raw_.size(); ++i) {
    auto sym = symptom_of_rule_code(raw_[i].code);
    if (!sym) {
      order_.emplace_back(i, -1);
      continue;
    }
    size_t li = links_.of(raw_[i].subject);
    if (li >= signals_.size()) signals_.push_back(compute_link_signals({}, in_.window_s));
    size_t pi = pending_index(li, *sym);
    pendings_[pi].parts.push_back(&raw_[i]);
    pendings_[pi].severity = std::max(pendings_[pi].severity, raw_[i].severity);
    order_.emplace_back(i, static_cast<int>(pi));
  }
}

// The signals that need several counters of link `li`.
void Interpreter::add_computed(size_t li, const LinkSignals& s) {
  add_pause_shares(li, s);
  add_pre_fec_ber(li, s);
  add_lane_imbalance(li, s);
  add_ecn_share(li, s);
  add_pinned_symbol_errors(li);
}

// Pause share per priority.
void Interpreter::add_pause_shares(size_t li, const LinkSignals& s) {
  for (const auto& ps : s.pause_shares) {
    if (ps.share <= kShareWarn) continue;
    Pending& p = pending(li, Symptom::kPfcStorm);
    p.severity = std::max(p.severity, ps.share > kShareError ? S::kError : S::kWarn);
  }
}

// Pre-FEC BER: a symptom above the warn limit, else context for a physical finding.
void Interpreter::add_pre_fec_ber(size_t li, const LinkSignals& s) {
  if (!s.corrected_bits_delta || !s.received_bits_delta) return;
  auto ber = pre_fec_ber(*s.corrected_bits_delta, *s.received_bits_delta);
  if (!ber) return;
  Severity sev = *ber > kBerError ? S::kError : *ber > kBerWarn ? S::kWarn : S::kInfo;
  Evidence e = ev("pre-FEC BER (d corrected bits / d received bits)", *ber, "ratio", kBerWarn,
                  "> 1e-6 warn, > 1e-5 error (FEC margin, docs/thresholds.md#fec-and-pre-fec-ber, heuristic)",
                  s.ber_source, fmt(*ber, "%.2e"));
  if (sev >= S::kWarn) {
    Pending& p = pending(li, Symptom::kPhyDegradation);
    p.severity = std::max(p.severity, sev);
    p.extra.push_back(e);
    p.notes.push_back("pre-FEC BER " + fmt(*ber, "%.2e"));
  } else {
    ber_context_[li] = e;
  }
}

// One lane far worse than the others.
void Interpreter::add_lane_imbalance(size_t li, const LinkSignals& s) {
  if (s.lanes.size() < 2) return;
  auto worst = std::max_element(s.lanes.begin(), s.lanes.end(), [](const auto& a, const auto& b) {
    return a.corrected_bits_delta < b.corrected_bits_delta;
  });
  uint64_t others = 0;
  for (const auto& l : s.lanes)
    if (&l != &*worst) others = std::max(others, l.corrected_bits_delta);
  double ratio = static_cast<double>(worst->corrected_bits_delta) /
                 static_cast<double>(std::max<uint64_t>(others, 1));
  if (worst->corrected_bits_delta < kLaneMinBits || ratio < kLaneRatio) return;
  Pending& p = pending(li, Symptom::kPhyDegradation);
  p.severity = std::max(p.severity, S::kWarn);
  p.extra.push_back(ev(worst->counter + " delta / the next worst lane", ratio, "x", kLaneRatio,
                       ">= 10x the other lanes: one bad lane, fibre, connector or SerDes "
                       "(docs/thresholds.md#fec-and-pre-fec-ber, heuristic)",
                       worst->source));
  p.notes.push_back("lane " + std::to_string(worst->lane) + " has " + fmt(ratio, "%.0f") +
                    "x the corrected bits of the other lanes");
}

// ECN marks against received RoCE packets.
void Interpreter::add_ecn_share(size_t li, const LinkSignals& s) {
  if (!s.ecn_marked_delta || !s.roce_rx_packets_delta || *s.roce_rx_packets_delta == 0) return;
  double share = static_cast<double>(*s.ecn_marked_delta) / static_cast<double>(*s.roce_rx_packets_delta);
  Evidence e = ev("ECN-marked / received RoCE packets (" + s.roce_rx_counter + ")", share * 100,
                  "%", kMarkedWarn * 100,
                  "> 1 % sustained (docs/thresholds.md#congestion-ecn-and-cnp, heuristic)", s.ecn_source);
  Pending& p = pending(li, Symptom::kCongestion);
  if (share > kMarkedWarn) p.severity = std::max(p.severity, S::kWarn);
  p.extra.push_back(e);
  p.notes.push_back(pct(share) + " of received RoCE packets ECN-marked");
}

// A symbol_error counter pinned at its maximum in a single reading.
void Interpreter::add_pinned_symbol_errors(size_t li) {
  for (const CounterChange* ch : links_.links[li].changes) {
    const Counter& c = ch->counter;
    if (ch->status != DeltaStatus::kSnapshot || !c.saturated || c.canonical != "symbol_error") continue;
    Pending& p = pending(li, Symptom::kPhyDegradation);
    p.severity = S::kCritical;
    p.notes.push_back(c.name + " pinned at its " + std::to_string(c.width_bits) +
                      "-bit maximum: at least " + std::to_string(c.value));
    p.extra.push_back(ev(c.name + " pinned at its " + std::to_string(c.width_bits) + "-bit maximum",
                         static_cast<double>(c.value), c.unit, 10,
                         "at least " + std::to_string(c.value) + " symbol errors: thousands of "
                         "times rdma-core's limit of 10 (docs/thresholds.md#saturated-counters; case 018)",
                         c.source));
    p.extra.back().at_least = true;
  }
}

// Loss on a RoCE port without a lossless class: rdma_packet_loss becomes lossy_roce.
void Interpreter::mark_lossy_roce() {
  for (auto& p : pendings_) {
    if (p.symptom != Symptom::kRdmaPacketLoss) continue;
    const CounterLink& link = links_.links[p.link];
    const LinkSignals& s = signals_[p.link];
    bool roce = link.link_layer == "Ethernet" || (link.link_layer.empty() && s.has_prio_counters);
    if (!roce || !s.has_driver_stats || s.pause_seen) continue;
    bool prio_uncovered = s.traffic_prio && !s.pfc_prios.count(*s.traffic_prio);
    if (!s.pfc_prios.empty() && !prio_uncovered) continue;
    p.symptom = Symptom::kLossyRoce;
    add_lossy_roce_evidence(p, link, s);
  }
}

// Context evidence next to a physical finding: a BER within limits, link error recoveries.
void Interpreter::add_phy_context() {
  for (auto& p : pendings_) {
    if (p.symptom != Symptom::kPhyDegradation) continue;
    if (auto it = ber_context_.find(p.link); it != ber_context_.end()) p.extra.push_back(it->second);
    for (const CounterChange* ch : links_.links[p.link].changes) {
      auto n = change_amount(*ch);
      if (ch->counter.canonical != "link_error_recovery" || !n || *n == 0) continue;
      if (judged_in_a_symptom(pendings_, ch->counter.name)) continue;  // already evidence of a link_flap finding
      p.extra.push_back(ev(ch->counter.name + (ch->status == DeltaStatus::kSnapshot ? " (cumulative)" : " delta"),
                           static_cast<double>(*n), "count", std::nullopt,
                           "context: retrains of the same link (docs/thresholds.md#link-flaps)",
                           ch->counter.source));
      p.context.push_back("with " + ch->counter.name + " " + std::to_string(*n) + " (retrains)");
    }
  }
}

// Log carrier losses: >= 5 within 24 h is an error (Azure NHC).
void Interpreter::judge_log_carrier_losses() {
  for (auto& p : pendings_) {
    if (p.symptom != Symptom::kLinkFlap) continue;
    const auto& changes = links_.links[p.link].changes;
    bool has_max = std::any_of(changes.begin(), changes.end(), [](const CounterChange* o) {
      return o->counter.canonical == "carrier_lost_events_max_24h";
    });
    for (const CounterChange* ch : changes) {
      const Counter& c = ch->counter;
      bool max24 = c.canonical == "carrier_lost_events_max_24h";
      if (!max24 && c.canonical != "carrier_lost_events") continue;
      auto n = change_amount(*ch);
      if (!n || !(max24 || !has_max) || *n < 5) continue;
      p.severity = std::max(p.severity, S::kError);
      p.extra.push_back(ev(c.name, static_cast<double>(*n), "count", 5,
                           max24 ? ">= 5 lost-carrier in 24 h (Azure NHC azure_ib_link_flapping)"
                                 : ">= 5 lost-carrier (Azure NHC counts 24 h; the log has no "
                                   "usable timestamps, so its whole span is taken)",
                           c.source));
    }
  }
}

// (device, counter name) already shown in a symptom: not repeated in counter_saturated.
std::set<std::pair<std::string, std::string>> Interpreter::covered_counters() const {
  std::set<std::pair<std::string, std::string>> covered;
  for (const auto& p : pendings_)
    for (const Finding* r : p.parts)
      for (const auto& e : r->evidence) covered.insert({r->subject, e.metric.substr(0, e.metric.find(' '))});
  for (const auto& p : pendings_)
    for (const auto& e : p.extra) covered.insert({links_.links[p.link].primary, e.metric.substr(0, e.metric.find(' '))});
  return covered;
}

// The findings in raw order: merged ones where their first part was, computed ones after them,
// the optics last.
std::vector<Emitted> Interpreter::emit() {
  const auto covered = covered_counters();
  std::vector<Emitted> emitted;
  auto emit_pending = [&](Pending& p) {
    if (p.emitted) return;
    p.emitted = true;
    auto [f, head] = assemble(p, signals_[p.link]);
    emitted.push_back({p.link, std::move(f), std::move(head)});
  };
  for (auto [ri, pi] : order_) {
    if (pi >= 0) {
      emit_pending(pendings_[static_cast<size_t>(pi)]);
      continue;
    }
    Finding f = raw_[ri];
    if (f.code == "counter_saturated" && !trim_saturated(f, covered)) continue;
    std::string head = pass_through_headline(f);
    emitted.push_back({links_.of(f.subject), std::move(f), head});
  }
  for (auto& p : pendings_)
    if (p.severity >= S::kWarn || !p.parts.empty() || !p.extra.empty()) emit_pending(p);
  for (const auto& m : in_.optics)
    if (auto f = optics_finding(m)) emitted.push_back({kNoLink, std::move(*f), ""});
  return emitted;
}

// One line per link that has counters or findings, then the optical modules.
std::vector<PortSummary> Interpreter::summarize(const std::vector<Emitted>& emitted) const {
  std::vector<PortSummary> out;
  for (size_t li = 0; li < links_.links.size(); ++li) {
    const CounterLink& link = links_.links[li];
    std::vector<const Emitted*> fs;
    for (const auto& e : emitted)
      if (e.link == li) fs.push_back(&e);
    if (fs.empty() && link.changes.empty()) continue;
    PortSummary ps;
    ps.subject = link.label;
    std::stable_sort(fs.begin(), fs.end(), [](const Emitted* a, const Emitted* b) {
      return a->finding.severity > b->finding.severity;
    });
    for (const Emitted* e : fs) {
      ps.worst = std::max(ps.worst, e->finding.severity);
      ps.healthy = ps.healthy && e->finding.severity < S::kWarn;
    }
    // A problem line names the problems; info findings are listed only on a healthy port.
    for (const Emitted* e : fs)
      if (e->finding.severity >= S::kWarn || ps.healthy)
        ps.line += (ps.line.empty() ? "" : "; ") + e->headline;
    if (ps.line.empty())
      ps.line = link.label + ": nothing wrong found (" + std::to_string(link.changes.size()) +
                " counters)";
    out.push_back(ps);
  }
  for (const auto& m : in_.optics) out.push_back(optics_port_summary(m));
  return out;
}

void Interpreter::count_unknown(CounterInterpretation& out) const {
  std::unordered_set<std::string_view> seen;  // views of in_'s names, which outlive the loop
  for (const auto& ch : in_.changes)
    if (ch.counter.category == CounterCategory::kUnknown) {
      ++out.unknown_counters;
      if (seen.insert(ch.counter.name).second) out.unknown_names.push_back(ch.counter.name);
    }
}

std::string Interpreter::headline(const Pending& p, const LinkSignals& s,
                                  const std::string& subject, bool with_fig) const {
  // A short figure after the headline: the first computed note, else the first rule's items.
  std::string figure = !with_fig          ? std::string()
                       : !p.notes.empty() ? p.notes.front()
                       : !p.parts.empty() ? items_of(**std::max_element(p.parts.begin(), p.parts.end(),
                                                           [](const Finding* a, const Finding* b) {
                                                             return a->severity < b->severity;
                                                           }))
                                          : std::string();
  auto with_figure = [&](std::string h) { return figure.empty() ? h : h + ": " + figure; };
  switch (p.symptom) {
    case Symptom::kPfcStorm: return pfc_headline(p, s, subject);
    case Symptom::kCongestion: return with_figure("congestion on " + subject);
    case Symptom::kEcnNotEnabled: return "ECN/DCQCN not enabled on " + subject + ": CNPs ignored";
    case Symptom::kLossyRoce: return lossy_roce_headline(links_.links[p.link], s);
    case Symptom::kRdmaPacketLoss: return with_figure("RDMA packet loss on " + subject);
    case Symptom::kPhyDegradation: return with_figure("physical-layer degradation on " + subject);
    case Symptom::kLinkFlap: return with_figure("link flaps on " + subject);
    case Symptom::kRxStarvation: return with_figure("receiver starvation on " + subject);
  }
  return std::string(to_string(p.symptom)) + " on " + subject;
}

std::pair<Finding, std::string> Interpreter::assemble(const Pending& p, const LinkSignals& s) const {
  const CounterLink& link = links_.links[p.link];
  Finding f;
  f.code = to_string(p.symptom);
  f.layer = layer_of(p.symptom);
  f.severity = p.severity;
  std::set<std::string> subjects;
  for (const Finding* r : p.parts) subjects.insert(r->subject);
  f.subject = subjects.size() == 1 && p.extra.empty() ? *subjects.begin() : link.primary;
  const bool pause_frames = p.symptom == Symptom::kPfcStorm && f.severity < S::kWarn;
  if (pause_frames) f.code = "pause_frames";
  std::string who = subjects.size() == 1 && p.parts.size() ? *subjects.begin() : link.label;
  std::string head = headline(p, s, who, false);
  std::string detail;
  for (const auto& n : p.notes) detail += (detail.empty() ? "" : "; ") + n;
  std::vector<const Finding*> parts = p.parts;  // worst first; uncorrectable FEC before CRC
  std::stable_sort(parts.begin(), parts.end(), [](const Finding* a, const Finding* b) {
    if (a->severity != b->severity) return a->severity > b->severity;
    return a->code == "fec_uncorrectable" && b->code != "fec_uncorrectable";
  });
  for (const Finding* r : parts) {
    detail += (detail.empty() ? "" : "; ") + r->message;
    for (const auto& e : r->evidence) f.evidence.push_back(e);
    if (f.action.empty()) f.action = r->action;
  }
  for (const auto& c : p.context) detail += (detail.empty() ? "" : "; ") + c;
  for (const auto& e : p.extra) f.evidence.push_back(e);
  f.message = head + (detail.empty() ? "" : ": " + detail);
  if (const char* a = action_of(p.symptom); *a) f.action = a;
  if (pause_frames && !p.parts.empty()) f.action = p.parts.front()->action;
  if (p.symptom == Symptom::kLossyRoce && s.rx_avg_frame_bytes && *s.rx_avg_frame_bytes < 2000)
    f.action += "; frames average " + fmt(*s.rx_avg_frame_bytes, "%.0f") +
                " bytes, which fits a 1024-byte RoCE MTU: raise it (4096 is usual)";
  return {f, headline(p, s, who, true)};
}

CounterInterpretation Interpreter::run() {
  raw_ = evaluate_counter_rules(in_.ports, in_.changes, in_.window_s);
  for (const auto& l : links_.links) signals_.push_back(compute_link_signals(l.changes, in_.window_s));
  group_raw_findings();
  for (size_t li = 0; li < links_.links.size(); ++li) add_computed(li, signals_[li]);
  mark_lossy_roce();
  add_phy_context();
  judge_log_carrier_losses();
  std::vector<Emitted> emitted = emit();

  CounterInterpretation out;
  out.summaries = summarize(emitted);
  for (auto& e : emitted) out.findings.push_back(std::move(e.finding));
  count_unknown(out);
  return out;
}

}  // namespace

std::optional<double> pre_fec_ber(uint64_t corrected_bits_delta, uint64_t received_bits_delta) {
  if (received_bits_delta == 0) return std::nullopt;
  return static_cast<double>(corrected_bits_delta) / static_cast<double>(received_bits_delta);
}

CounterInterpretation interpret_counters(const InterpretInput& in) {
  return interpret_counters(in.ports, in.changes, in.window_s, in.optics);
}

CounterInterpretation interpret_counters(const std::vector<PortInfo>& ports,
                                         const std::vector<CounterChange>& changes,
                                         std::optional<double> window_s,
                                         const std::vector<ModuleDiagnostics>& optics) {
  return Interpreter(InputView{ports, changes, window_s, optics}).run();
}

}  // namespace fabdiag
