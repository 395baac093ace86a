#include "import/rdma_statistic.h"

#include "core/text.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

struct Token {
  std::string text;
  size_t line = 0;
};

PortInfo port_of(const std::string& device) {
  PortInfo p;
  p.device = device;
  size_t slash = device.find('/');
  p.ibdev = device.substr(0, slash);
  if (slash != std::string::npos)
    if (auto v = parse_u64(device.substr(slash + 1))) p.port = static_cast<int>(*v);
  p.is_rdma = true;
  return p;
}

void add(CounterImport& imp, Snapshot& snap, const std::string& device, const std::string& name,
         uint64_t value, const std::string& src) {
  PortInfo p = port_of(device);
  merge_port(imp.ports, p);
  snap.samples.push_back(make_counter(device, CounterGroup::kIbHwCounters, name, value, p.ibdev, src));
}

// The text forms: a token stream where "link <dev>" starts a record and name/value pairs follow,
// whatever the line breaks; read one token at a time, with one token of lookahead.
class TokenReader {
 public:
  TokenReader(CounterImport& imp, Snapshot& snap) : imp_(imp), snap_(snap) {}

  void line(std::string_view raw, size_t line_no) {
    for (auto& w : split_ws(std::string(raw))) token(w, line_no);
  }

  // Ends the section; returns the records read.
  size_t finish() {
    if (pending_) bad_.add(pending_line_);
    pending_.reset();
    if (bad_.count)
      snap_.gaps.push_back(make_error(ErrorCode::kParse,
                                      std::to_string(bad_.count) + " token(s) are not \"name value\" "
                                      "pairs of a record, first at line " + std::to_string(bad_.first),
                                      imp_.source));
    return records_;
  }

 private:
  void token(std::string& w, size_t line_no) {
    if (!pending_) {
      pending_ = std::move(w);
      pending_line_ = line_no;
      return;
    }
    std::string p = std::move(*pending_);
    size_t p_line = pending_line_;
    pending_.reset();
    auto keep = [&] {
      pending_ = std::move(w);
      pending_line_ = line_no;
    };
    if (p == "link") {
      device_ = w;
      ++records_;
      return;
    }
    if (device_.empty()) {
      bad_.add(p_line);
      return keep();
    }
    auto v = parse_u64(w);
    if (!v || parse_u64(p)) {
      bad_.add(p_line);
      return keep();
    }
    add(imp_, snap_, device_, p, *v, line_source(imp_.source, p_line));
  }

  CounterImport& imp_;
  Snapshot& snap_;
  std::string device_;
  std::optional<std::string> pending_;
  size_t pending_line_ = 0, records_ = 0;
  LineTally bad_;
};

size_t read_json(const TextSection& sec, CounterImport& imp, Snapshot& snap) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(sec.text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    snap.gaps.push_back(make_error(ErrorCode::kParse, "not a JSON array (rdma -j statistic show)",
                                   line_source(imp.source, sec.first_line)));
    return 0;
  }
  size_t records = 0;
  for (const auto& rec : doc) {
    if (!rec.is_object() || !rec.contains("ifname") || !rec["ifname"].is_string()) continue;
    std::string device = rec["ifname"].get<std::string>();
    if (rec.contains("port") && rec["port"].is_number_unsigned())
      device += "/" + std::to_string(rec["port"].get<unsigned>());
    ++records;
    for (auto it = rec.begin(); it != rec.end(); ++it) {
      if (it.key() == "ifname" || it.key() == "port" || it.key() == "ifindex") continue;
      if (!it->is_number_unsigned()) continue;
      add(imp, snap, device, it.key(), it->get<uint64_t>(), imp.source + " (JSON)");
    }
  }
  return records;
}

}  // namespace

namespace {

// One "###" section: the text forms streamed, or a JSON array (first character '[') held and parsed.
size_t read_section(LineSource& lines, CounterImport& imp, Snapshot& snap, std::optional<std::string>& title,
                    LineTally& other) {
  TokenReader tokens(imp, snap);
  std::optional<TextSection> json;
  bool text_form = false;
  title.reset();
  while (auto l = lines.next()) {
    std::string t;
    if (is_section_title(*l, &t)) {
      title = std::move(t);
      break;
    }
    if (json) {
      json->text.append(*l).append("\n");
      continue;
    }
    std::string tl = trim(*l);
    if (tl.empty()) continue;
    if (tl[0] == '[' && !text_form) {
      json = TextSection{"", lines.line_no(), std::string(*l) + "\n"};
      continue;
    }
    text_form = true;
    if (other.count == 0 && !starts_with(tl, "link ")) other.add(lines.line_no(), tl);
    tokens.line(*l, lines.line_no());
  }
  size_t records = tokens.finish();
  if (json) records += read_json(*json, imp, snap);
  return records;
}

}  // namespace

Result<CounterImport> import_rdma_statistic(LineSource& lines, const std::string& source, const ReadLimits&) {
  CounterImport imp;
  imp.format = "rdma-statistic";
  imp.source = source;
  imp.series.emplace_back();
  size_t records = 0;
  LineTally other;
  std::optional<std::string> title;
  do {
    Snapshot snap;
    records += read_section(lines, imp, snap, title, other);
    for (const auto& g : snap.gaps) imp.gaps.push_back(g);
    snap.gaps.clear();
    if (!snap.samples.empty()) imp.series[0].push(std::move(snap));
  } while (title);
  if (lines.error()) return *lines.error();
  if (records == 0)
    return not_this_format("`rdma statistic show` output (\"link <dev>/<port> name value ...\" records, or "
                           "`rdma -j` JSON)", source, other);
  return imp;
}

Result<CounterImport> import_rdma_statistic(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_rdma_statistic(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
