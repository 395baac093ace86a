#include "import/counter_formats.h"

#include <set>

#include "core/text.h"
#include "core/text_encoding.h"
#include "import/ethtool_fec.h"
#include "import/ethtool_m.h"
#include "import/ethtool_s.h"
#include "import/ibqueryerrors.h"
#include "import/perfquery.h"
#include "import/rdma_statistic.h"
#include "import/syslog.h"
#include "import/common.h"

namespace fabdiag {

const char* to_string(CounterImportFormat f) {
  switch (f) {
    case CounterImportFormat::kEthtoolS: return "ethtool-s";
    case CounterImportFormat::kEthtoolM: return "ethtool-m";
    case CounterImportFormat::kEthtoolFec: return "ethtool-fec";
    case CounterImportFormat::kPerfquery: return "perfquery";
    case CounterImportFormat::kIbqueryerrors: return "ibqueryerrors";
    case CounterImportFormat::kRdmaStatistic: return "rdma-statistic";
    case CounterImportFormat::kSyslog: return "syslog";
  }
  return "ethtool-s";
}

std::vector<CounterImportFormat> all_counter_import_formats() {
  return {CounterImportFormat::kEthtoolS,      CounterImportFormat::kEthtoolM,
          CounterImportFormat::kEthtoolFec,    CounterImportFormat::kPerfquery,
          CounterImportFormat::kIbqueryerrors, CounterImportFormat::kRdmaStatistic,
          CounterImportFormat::kSyslog};
}

std::optional<CounterImportFormat> parse_counter_import_format(std::string_view name) {
  for (auto f : all_counter_import_formats())
    if (name == to_string(f)) return f;
  return std::nullopt;
}

ToolText tool_of(CounterImportFormat f) {
  switch (f) {
    case CounterImportFormat::kEthtoolS: return ToolText::kEthtoolS;
    case CounterImportFormat::kEthtoolM: return ToolText::kEthtoolM;
    case CounterImportFormat::kEthtoolFec: return ToolText::kEthtoolFec;
    case CounterImportFormat::kPerfquery: return ToolText::kPerfquery;
    case CounterImportFormat::kIbqueryerrors: return ToolText::kIbqueryerrors;
    case CounterImportFormat::kRdmaStatistic: return ToolText::kRdmaStatistic;
    case CounterImportFormat::kSyslog: return ToolText::kSyslog;
  }
  return ToolText::kUnknown;
}

namespace {

std::optional<CounterImportFormat> counter_format_of_tool(ToolText t) {
  if (t == ToolText::kNvrmXid) t = ToolText::kSyslog;  // a kernel log with Xid lines is still a log of carrier flaps
  for (auto f : all_counter_import_formats())
    if (tool_of(f) == t) return f;
  return std::nullopt;
}

std::vector<std::string> head_of(std::string_view text) {
  auto lines = text_line_source(std::string(text));
  PeekedLineSource peeked(std::move(lines), 256);
  return peeked.head();
}

}  // namespace

std::optional<CounterImportFormat> detect_counter_import_format(std::string_view text) {
  return counter_format_of_tool(detect_tool(head_of(text)).tool);
}

Result<CounterImportFormat> counter_format_of(std::optional<CounterImportFormat> named,
                                              const std::vector<std::string>& head, const std::string& source) {
  if (named) {
    if (auto st = check_named_tool(tool_of(*named), head, source); !st) return st.error();
    return *named;
  }
  ToolEvidence ev = detect_tool(head);
  if (auto f = counter_format_of_tool(ev.tool)) return *f;
  if (!head.empty() && starts_with_utf16_bom(head[0]))
    return make_error(ErrorCode::kInvalidArgument, "cannot read " + utf16_refusal(), source);
  std::string seen = ev.binary ? "binary data (NUL bytes)"
                     : ev.tool != ToolText::kUnknown
                         ? std::string(describe(ev.tool)) + ", not counters (line " + std::to_string(ev.line) +
                               ": " + ev.text + ")"
                     : ev.line ? "text of no known tool (line " + std::to_string(ev.line) + ": " + ev.text + ")"
                               : "an empty input";
  return make_error(ErrorCode::kInvalidArgument,
                    "cannot tell which tool wrote this: it looks like " + seen +
                        " (give --from-format: ethtool-s, ethtool-m, ethtool-fec, perfquery, ibqueryerrors, "
                        "rdma-statistic or syslog)",
                    source);
}

namespace {

Result<CounterImport> import_by_format(CounterImportFormat format, LineSource& lines, const std::string& source,
                                       const std::string& device, const ReadLimits& limits) {
  switch (format) {
    case CounterImportFormat::kEthtoolS: return import_ethtool_s(lines, source, device, limits);
    case CounterImportFormat::kEthtoolM: return import_ethtool_m(lines, source, device, limits);
    case CounterImportFormat::kEthtoolFec: return import_ethtool_fec(lines, source, device, limits);
    case CounterImportFormat::kPerfquery: return import_perfquery(lines, source, limits);
    case CounterImportFormat::kIbqueryerrors: return import_ibqueryerrors(lines, source, limits);
    case CounterImportFormat::kRdmaStatistic: return import_rdma_statistic(lines, source, limits);
    case CounterImportFormat::kSyslog: return import_syslog(lines, source, limits);
  }
  return make_error(ErrorCode::kInternal, "unknown import format", source);
}

}  // namespace

Result<CounterImport> import_counters(CounterImportFormat format, LineSource& lines, const std::string& source,
                                      const std::string& device, const ReadLimits& limits) {
  auto imp = import_by_format(format, lines, source, device, limits);
  if (imp) add_cut_lines_gap(lines, source, imp->gaps);
  return imp;
}

Result<CounterImport> import_counters(CounterImportFormat format, std::string_view text,
                                      const std::string& source, const std::string& device) {
  auto lines = text_line_source(std::string(text));
  return import_counters(format, *lines, source, device);
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
      out.snapshots += series.read();
      if (series.empty()) continue;
      if (series.size() == 1) {
        for (auto& ch : snapshot_readings(series[0])) out.input.changes.push_back(std::move(ch));
        continue;
      }
      out.has_deltas = true;
      for (auto& ch : compute_delta(series[0], series[1], window_s.value_or(0)).changes)
        out.input.changes.push_back(std::move(ch));
      if (series.read() > 2) {
        std::string dev = series[0].samples.empty() ? std::string("?") : series[0].samples[0].device;
        out.notes.push_back(imp.source + ": " + std::to_string(series.read() - 2) +
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
