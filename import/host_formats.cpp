#include "import/host_formats.h"

#include <nlohmann/json.hpp>

#include "core/repeats.h"
#include "core/text.h"
#include "core/text_encoding.h"
#include "import/format_detect.h"
#include "import/host_facts_merge.h"
#include "import/ibstat.h"
#include "import/ibstatus.h"
#include "import/ibv_devinfo.h"
#include "import/lspci.h"
#include "import/lspci_listings.h"
#include "import/common.h"

namespace fabdiag {

namespace {

// Number after `key` in `line` ("error 4," -> 4), or the n of "key=NAME(n)".
std::optional<uint64_t> number_after(const std::string& line, const std::string& key) {
  auto p = line.find(key);
  if (p == std::string::npos) return std::nullopt;
  std::string rest = line.substr(p + key.size());
  size_t i = 0;
  if (!rest.empty() && !std::isdigit(static_cast<unsigned char>(rest[0]))) {
    // NAME(n)
    auto open = rest.find('(');
    auto stop = rest.find_first_of(" ,");
    if (open == std::string::npos || (stop != std::string::npos && stop < open)) return std::nullopt;
    i = open + 1;
  }
  size_t j = i;
  while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j;
  if (j == i) return std::nullopt;
  return parse_u64(rest.substr(i, j - i));
}

// `facts` with `gaps` (a port listing cut short: import/port_listing_gaps.h) added.
HostFacts with_gaps(HostFacts facts, std::vector<Error> gaps) {
  for (auto& e : gaps) facts.gaps.push_back(std::move(e));
  return facts;
}

// The facts of one section read as `fmt`; an lspci section's listing also goes to `listings`
// when given (parsed once for both).
Result<HostFacts> import_section(const TextSection& s, const std::string& source, InputFormat fmt,
                                 LspciListings* listings) {
  switch (fmt) {
    case InputFormat::kLspci: {
      auto l = parse_lspci(s.text, source, static_cast<int>(s.first_line));
      if (!l) return l.error();
      HostFacts f = lspci_to_facts(*l, source);
      if (listings) listings->add(std::move(*l), s.title);
      return f;
    }
    case InputFormat::kIbstat: {
      std::vector<Error> gaps;
      auto p = parse_ibstat(s.text, source, static_cast<int>(s.first_line), &gaps);
      if (!p) return p.error();
      return with_gaps(facts_from_ports(std::move(*p), "ibstat " + source), std::move(gaps));
    }
    case InputFormat::kIbstatus: {
      std::vector<Error> gaps;
      auto p = parse_ibstatus(s.text, source, static_cast<int>(s.first_line), &gaps);
      if (!p) return p.error();
      return with_gaps(facts_from_ports(std::move(*p), "ibstatus " + source), std::move(gaps));
    }
    case InputFormat::kIbvDevinfo: {
      std::vector<Error> gaps;
      auto p = parse_ibv_devinfo(s.text, source, static_cast<int>(s.first_line), &gaps);
      if (!p) return p.error();
      return with_gaps(facts_from_ports(std::move(*p), "ibv_devinfo " + source), std::move(gaps));
    }
    case InputFormat::kNcclLog: {
      HostFacts f;
      f.origin = "NCCL log " + source;
      f.wc_errors = parse_nccl_wc_errors(s.text, source, static_cast<int>(s.first_line));
      if (f.wc_errors.empty())
        return make_error(ErrorCode::kParse, "no NCCL work completion error (\"Got completion ... error\") in the log",
                          source);
      return f;
    }
    case InputFormat::kAuto: break;
  }
  return make_error(ErrorCode::kParse,
                    "format not recognized (expected lspci -vvv, ibstat, ibstatus, ibv_devinfo or an NCCL log)",
                    source);
}

}  // namespace

const char* to_string(InputFormat f) {
  switch (f) {
    case InputFormat::kAuto: return "auto";
    case InputFormat::kLspci: return "lspci";
    case InputFormat::kIbstat: return "ibstat";
    case InputFormat::kIbstatus: return "ibstatus";
    case InputFormat::kIbvDevinfo: return "ibv-devinfo";
    case InputFormat::kNcclLog: return "nccl-log";
  }
  return "auto";
}

std::optional<InputFormat> parse_input_format(const std::string& name) {
  for (auto f : {InputFormat::kAuto, InputFormat::kLspci, InputFormat::kIbstat, InputFormat::kIbstatus,
                 InputFormat::kIbvDevinfo, InputFormat::kNcclLog})
    if (name == to_string(f)) return f;
  return std::nullopt;
}

ToolText tool_of(InputFormat f) {
  switch (f) {
    case InputFormat::kLspci: return ToolText::kLspci;
    case InputFormat::kIbstat: return ToolText::kIbstat;
    case InputFormat::kIbstatus: return ToolText::kIbstatus;
    case InputFormat::kIbvDevinfo: return ToolText::kIbvDevinfo;
    case InputFormat::kNcclLog: return ToolText::kNcclLog;
    case InputFormat::kAuto: break;
  }
  return ToolText::kUnknown;
}

InputFormat detect_format(std::string_view text) {
  bool lspci = false, nccl = false, ibstat = false, ibstatus = false;
  for (const auto& raw : split(text, '\n')) {
    switch (marker_of_line(raw)) {
      case ToolText::kIbvDevinfo: return InputFormat::kIbvDevinfo;
      case ToolText::kIbstat: ibstat = true; break;
      case ToolText::kIbstatus: ibstatus = true; break;
      case ToolText::kLspci: lspci = true; break;
      case ToolText::kNcclLog: nccl = true; break;
      default: break;
    }
  }
  if (ibstat) return InputFormat::kIbstat;
  if (ibstatus) return InputFormat::kIbstatus;
  if (lspci) return InputFormat::kLspci;
  if (nccl) return InputFormat::kNcclLog;
  return InputFormat::kAuto;
}

std::optional<WcError> parse_nccl_wc_error_line(std::string_view line) {
  std::string t = trim(line);
  if (t.find("Got completion") == std::string::npos) return std::nullopt;
  auto status = number_after(t, "with error ");
  if (!status) status = number_after(t, "status=");
  if (!status || *status > 255) return std::nullopt;
  WcError w;
  w.status = static_cast<int>(*status);
  if (auto v = number_after(t, "opcode ")) w.opcode = static_cast<int>(*v);
  else if (auto v2 = number_after(t, "opcode=")) w.opcode = static_cast<int>(*v2);
  if (auto v = number_after(t, "len ")) w.len_bytes = *v;
  else if (auto v2 = number_after(t, "len=")) w.len_bytes = *v2;
  if (auto v = number_after(t, "vendor err ")) w.vendor_err = static_cast<int>(*v);
  else if (auto v2 = number_after(t, "vendor_err=")) w.vendor_err = static_cast<int>(*v2);
  if (auto h = t.find(" hca "); h != std::string::npos) {
    auto words = split_ws(t.substr(h + 5));
    if (!words.empty()) w.hca = words[0];
  }
  w.line = t;
  return w;
}

std::vector<WcError> parse_nccl_wc_errors(std::string_view text, const std::string& source, int first_line) {
  std::vector<WcError> out;
  int n = first_line - 1;
  for (const auto& raw : split(text, '\n')) {
    ++n;
    auto w = parse_nccl_wc_error_line(raw);
    if (!w) continue;
    w->source = source + " line " + std::to_string(n);
    out.push_back(std::move(*w));
  }
  return out;
}

namespace {

// Imports one section into `facts` (any = it gave facts) or `failures` (bounded per kind of
// message); its lspci listing into `listings` when asked.
void import_one_section(const TextSection& s, const std::string& source, InputFormat format, HostFactsMerge& facts,
                        bool& any, BoundedErrors& failures, LspciListings* listings) {
  if (trim(s.text).empty()) return;
  if (s.first_line == 1 && starts_with_utf16_bom(s.text)) {
    Error e = make_error(ErrorCode::kParse, "cannot read " + utf16_refusal(), source);
    failures.add(error_kind(e.message), std::move(e));
    return;
  }
  InputFormat fmt = format == InputFormat::kAuto ? detect_format(s.text) : format;
  auto r = import_section(s, source, fmt, listings);
  if (!r) {
    Error e = r.error();
    if (!s.title.empty()) e = e.with_context("section '" + s.title + "' (line " + std::to_string(s.title_line) + ")");
    failures.add(error_kind(e.message), std::move(e));
    return;
  }
  any = true;
  facts.add(std::move(*r), s.title);
}

// A section of a port listing is cut into parts of about this size, at a record's first line
// (SectionReader::cut_at_records()).
constexpr size_t kRecordCutBytes = 1 << 20;

// True for the first line of a record that stands alone in `format`'s output: an ibstat CA
// ("CA 'mlx5_0'"), an ibstatus port ("Infiniband device 'mlx5_0' port 1 status:"), an
// ibv_devinfo device ("hca_id:\tmlx5_0"). Never for lspci (a listing's functions refer to each
// other: bridges' bus ranges) nor NCCL logs.
bool starts_record(InputFormat format, std::string_view line) {
  std::string t = trim(line);
  switch (format) {
    case InputFormat::kIbstat: return starts_with(t, "CA '");
    case InputFormat::kIbstatus: return starts_with(t, "Infiniband device '") && ends_with(t, "status:");
    case InputFormat::kIbvDevinfo: return starts_with(t, "hca_id:");
    default: return false;
  }
}

}  // namespace

Result<HostFacts> import_host_facts(LineSource& lines, const std::string& source, InputFormat format,
                                    const ReadLimits& limits, nlohmann::json* lspci_listings) {
  HostFactsMerge merged(limits.max_listed);
  LspciListings listings;
  bool any = false;
  BoundedErrors failures(limits.max_listed);
  SectionReader sections(lines);
  if (format == InputFormat::kIbstat || format == InputFormat::kIbstatus || format == InputFormat::kIbvDevinfo)
    sections.cut_at_records(kRecordCutBytes, [format](std::string_view line) { return starts_record(format, line); });
  while (auto s = sections.next())
    import_one_section(*s, source, format, merged, any, failures, lspci_listings ? &listings : nullptr);
  if (lines.error()) return *lines.error();
  if (lspci_listings) listings.append_json(*lspci_listings);
  HostFacts facts = merged.take();
  size_t failed = failures.total();
  std::vector<Error> failed_sections = failures.take();
  if (!any) {
    if (failed == 1) return failed_sections.front();
    return make_error(ErrorCode::kParse,
                      "no section could be read (expected lspci -vvv, ibstat, ibstatus, ibv_devinfo or an NCCL log)",
                      source);
  }
  for (auto& e : failed_sections) facts.gaps.push_back(std::move(e));
  add_cut_lines_gap(lines, source, facts.gaps);
  return facts;
}

Result<HostFacts> import_host_facts(std::string_view text, const std::string& source, InputFormat format) {
  auto lines = text_line_source(std::string(text));
  return import_host_facts(*lines, source, format, ReadLimits{0}, nullptr);
}

nlohmann::json host_facts_data(const HostFacts& facts, nlohmann::json lspci_listings, InputFormat format) {
  nlohmann::json data = facts;
  if (format == InputFormat::kLspci) data["lspci"] = std::move(lspci_listings);
  return data;
}

nlohmann::json host_facts_data(const HostFacts& facts, std::string_view text, const std::string& source,
                               InputFormat format) {
  nlohmann::json listings = nlohmann::json::array();
  if (format == InputFormat::kLspci) {
    LspciListings kept;
    for (const auto& s : split_sections(text))
      if (auto l = parse_lspci(s.text, source, static_cast<int>(s.first_line))) kept.add(std::move(*l), s.title);
    kept.append_json(listings);
  }
  return host_facts_data(facts, std::move(listings), format);
}

Result<HostFacts> import_host_files(const std::vector<std::string>& files, const InputTextReader& read,
                                    InputFormat format) {
  HostFactsMerge merged;
  for (const auto& file : files) {
    auto text = read(file);
    if (!text) return text.error();
    auto imported = import_host_facts(*text, file, format);
    if (!imported) return imported.error();
    merged.add(std::move(*imported), file);
  }
  return merged.take();
}

}  // namespace fabdiag
