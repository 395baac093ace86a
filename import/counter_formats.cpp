#include "import/counter_formats.h"

#include <set>

#include "core/text.h"
#include "import/ethtool_m.h"
#include "import/ethtool_s.h"
#include "import/ibqueryerrors.h"
#include "import/perfquery.h"
#include "import/rdma_statistic.h"
#include "import/syslog.h"

namespace fabdiag {

const char* to_string(CounterImportFormat f) {
  switch (f) {
    case CounterImportFormat::kEthtoolS: return "ethtool-s";
    case CounterImportFormat::kEthtoolM: return "ethtool-m";
    case CounterImportFormat::kPerfquery: return "perfquery";
    case CounterImportFormat::kIbqueryerrors: return "ibqueryerrors";
    case CounterImportFormat::kRdmaStatistic: return "rdma-statistic";
    case CounterImportFormat::kSyslog: return "syslog";
  }
  return "ethtool-s";
}

std::vector<CounterImportFormat> all_counter_import_formats() {
  return {CounterImportFormat::kEthtoolS,      CounterImportFormat::kEthtoolM,
          CounterImportFormat::kPerfquery,     CounterImportFormat::kIbqueryerrors,
          CounterImportFormat::kRdmaStatistic, CounterImportFormat::kSyslog};
}

std::optional<CounterImportFormat> parse_counter_import_format(std::string_view name) {
  for (auto f : all_counter_import_formats())
    if (name == to_string(f)) return f;
  return std::nullopt;
}

std::optional<CounterImportFormat> detect_counter_import_format(std::string_view text) {
  size_t lines = 0, timestamped = 0, name_number = 0;
  bool first_record = true;
  std::string first_word;
  for (const auto& raw : split(text, '\n')) {
    std::string t = trim(raw);
    if (t.empty() || starts_with(t, "###")) continue;
    ++lines;
    if (starts_with(t, "Errors for ") || starts_with(t, "## Summary:"))
      return CounterImportFormat::kIbqueryerrors;
    if (starts_with(t, "#") && t.find("counters:") != std::string::npos &&
        t.find("Lid") != std::string::npos)
      return CounterImportFormat::kPerfquery;
    if (first_record) {
      first_record = false;
      auto words = split_ws(t);
      first_word = words.empty() ? "" : words[0];
      if (first_word == "link" && words.size() >= 2 && words[1].find('/') != std::string::npos)
        return CounterImportFormat::kRdmaStatistic;
      if (t[0] == '[' && text.find("\"ifname\"") != std::string_view::npos)
        return CounterImportFormat::kRdmaStatistic;
    }
    if ((t.find(" mW / ") != std::string::npos && t.find("dBm") != std::string::npos) ||
        starts_with(t, "Module temperature") || starts_with(t, "Laser output power"))
      return CounterImportFormat::kEthtoolM;
    if (log_line_time_s(t)) ++timestamped;
    size_t colon = t.rfind(':');
    if (colon != std::string::npos && parse_u64(t.substr(colon + 1))) ++name_number;
  }
  if (lines == 0) return std::nullopt;
  if (timestamped * 2 > lines) return CounterImportFormat::kSyslog;
  if (name_number * 2 > lines || looks_like_sysfs_lines(text)) return CounterImportFormat::kEthtoolS;
  return std::nullopt;
}

Result<CounterImport> import_counters(CounterImportFormat format, std::string_view text,
                                      const std::string& source, const std::string& device) {
  switch (format) {
    case CounterImportFormat::kEthtoolS: return import_ethtool_s(text, source, device);
    case CounterImportFormat::kEthtoolM: return import_ethtool_m(text, source, device);
    case CounterImportFormat::kPerfquery: return import_perfquery(text, source);
    case CounterImportFormat::kIbqueryerrors: return import_ibqueryerrors(text, source);
    case CounterImportFormat::kRdmaStatistic: return import_rdma_statistic(text, source);
    case CounterImportFormat::kSyslog: return import_syslog(text, source);
  }
  return make_error(ErrorCode::kInternal, "unknown import format", source);
}

CombinedImport combine_imports(const std::vector<CounterImport>& imports,
                               std::optional<double> window_s) {
  CombinedImport out;
  out.input.window_s = window_s;
  for (const auto& imp : imports) {
    for (const auto& p : imp.ports) merge_port(out.input.ports, p);
    for (const auto& m : imp.optics) out.input.optics.push_back(m);
    for (const auto& g : imp.gaps) out.gaps.push_back(g);
    for (const auto& n : imp.notes) out.notes.push_back(imp.source + ": " + n);
    for (const auto& series : imp.series) {
      out.snapshots += series.size();
      if (series.empty()) continue;
      if (series.size() == 1) {
        for (auto& ch : snapshot_readings(series[0])) out.input.changes.push_back(std::move(ch));
        continue;
      }
      out.has_deltas = true;
      for (auto& ch : compute_delta(series[0], series[1], window_s.value_or(0)).changes)
        out.input.changes.push_back(std::move(ch));
      if (series.size() > 2) {
        std::string dev = series[0].samples.empty() ? std::string("?") : series[0].samples[0].device;
        out.notes.push_back(imp.source + ": " + std::to_string(series.size() - 2) +
                            " later snapshot(s) of " + dev +
                            " read but not used: the window is the first two");
      }
    }
  }
  if (!out.has_deltas) out.input.window_s.reset();
  // Pair a lone RDMA port with a lone netdev that has counters.
  std::vector<PortInfo*> lone_rdma;
  for (auto& p : out.input.ports)
    if (p.is_rdma && p.netdev.empty()) lone_rdma.push_back(&p);
  std::set<std::string> netdevs;
  for (const auto& ch : out.input.changes)
    if (ch.counter.group == CounterGroup::kEthtoolStats || ch.counter.group == CounterGroup::kNetdevStats)
      netdevs.insert(ch.counter.device);
  for (const auto& p : out.input.ports)
    if (p.is_rdma) netdevs.erase(p.device);
  if (lone_rdma.size() == 1 && netdevs.size() == 1) {
    lone_rdma[0]->netdev = *netdevs.begin();
    out.notes.push_back("paired " + lone_rdma[0]->device + " with netdev " + *netdevs.begin() +
                        " (the only RDMA port and the only netdev in the input)");
  }
  return out;
}

}  // namespace fabdiag
