#include "import/dcgmi.h"

#include <algorithm>

#include "core/text.h"
#include "import/common.h"
#include "import/nul_bytes.h"
#include "import/whole_lines.h"

namespace fabdiag {

size_t DcgmLinkEntity::count(char state) const {
  return static_cast<size_t>(std::count(states.begin(), states.end(), state));
}

namespace {

// "D D D U _ X": the states of one entity; nullopt for any other line.
std::optional<std::string> link_states(const std::string& t) {
  std::string out;
  for (const auto& w : split_ws(t)) {
    if (w.size() != 1 || std::string("UDX_").find(w[0]) == std::string::npos) return std::nullopt;
    out += w[0];
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// "gpuId 0:" / "physicalId 8:" -> the id.
std::optional<int> entity_id(const std::string& t) {
  auto words = split_ws(t);
  if (words.size() != 2 || words[1].size() < 2 || words[1].back() != ':') return std::nullopt;
  auto n = parse_u64(words[1].substr(0, words[1].size() - 1));
  if (!n || *n > 1u << 20) return std::nullopt;
  return static_cast<int>(*n);
}

struct Reader {
  DcgmiImport& imp;
  enum class Block { kNone, kGpus, kSwitches } block = Block::kNone;
  std::optional<int> pending;
  DcgmDiagState diag;
  size_t evidence = 0;
  LineTally other;

  bool link_line(const std::string& t, size_t line_no) {
    if (t == "GPUs:") return block = Block::kGpus, imp.link_status_read = true;
    if (t == "NvSwitches:") return block = Block::kSwitches, true;
    if (block == Block::kSwitches && starts_with(t, "No NvSwitches found")) return imp.no_nvswitches = true;
    if (block == Block::kNone) return false;
    if (auto id = entity_id(t)) return pending = id, true;
    if (auto states = link_states(t); states && pending) {
      auto& list = block == Block::kGpus ? imp.gpus : imp.nvswitches;
      if (list.size() < 1024) list.push_back({*pending, *states, line_no});
      pending.reset();
      ++evidence;
      return true;
    }
    if (starts_with(t, "Key: Up=U")) return block = Block::kNone, true;
    return false;
  }

  void line(std::string_view raw, size_t line_no) {
    std::string t = trim(raw);
    if (t.empty() || starts_with(t, "###")) return;
    size_t tests = imp.tests.size();
    if (read_dcgm_diag_line(raw, line_no, diag, imp)) {
      evidence += imp.tests.size() > tests;
      return;
    }
    if (!link_line(t, line_no)) other.add(line_no, t);
  }
};

}  // namespace

Result<DcgmiImport> import_dcgmi(LineSource& lines, const std::string& source, const ReadLimits&) {
  DcgmiImport imp;
  imp.source = source;
  Reader r{imp, {}, {}, {}, 0, {}};
  NulTally nuls;
  auto st = for_each_whole_line_counting_nuls(
      lines, source, [&](std::string_view l, size_t n) { r.line(l, n); }, imp.gaps,
      [&](std::string_view l, size_t n) { r.other.add(n, l); }, nuls);
  if (!st) return st.error();
  finish_dcgm_diag(r.diag, imp);
  if (imp.tests_not_kept)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  std::to_string(imp.tests_not_kept) + " dcgmi diag rows past the first " +
                                      std::to_string(imp.tests.size()) + " tests not kept",
                                  source));
  if (r.evidence == 0) {
    return not_this_format_text(
        "dcgmi output (`dcgmi nvlink --link-status` \"gpuId N:\" with link states, or a `dcgmi diag` result table)",
        source, r.other, lines);
  }
  add_nul_gap(imp.gaps, source, nuls);  // NULs are not emptiness: the rest was read
  return imp;
}

Result<DcgmiImport> import_dcgmi(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_dcgmi(*lines, source, ReadLimits{});
}

namespace {

std::string src(const DcgmiImport& imp, size_t line) { return line_source(imp.source, line); }

// What the diag said, for the link findings: "dcgmi diag passed 5 tests (the table is cut)".
std::string diag_note(const DcgmiImport& imp) {
  if (!imp.diag_read) return "";
  size_t pass = 0, fail = 0;
  for (const auto& t : imp.tests) {
    if (t.cut) continue;
    pass += t.status() == "Pass";
    fail += t.status() == "Fail";
  }
  if (fail) return "";
  return "; dcgmi diag passed " + std::to_string(pass) + " test(s)" + (imp.diag_complete ? "" : " (its table is cut)") +
         ", which does not clear links that are down";
}

void link_findings(const DcgmiImport& imp, const DcgmLinkEntity& e, bool nvswitch, std::vector<Finding>& out) {
  std::string who = (nvswitch ? "NvSwitch " : "GPU ") + std::to_string(e.id);
  size_t down = e.count('D'), up = e.count('U'), off = e.count('X');
  std::vector<std::string> links;
  for (size_t i = 0; i < e.states.size(); ++i)
    if (e.states[i] == 'D') links.push_back(std::to_string(i));
  if (down) {
    Finding f;
    f.severity = Severity::kError;
    f.code = nvswitch ? "dcgm_nvswitch_links_down" : "dcgm_nvlink_down";
    f.subject = who;
    f.message = who + ": " + std::to_string(down) + " of " + std::to_string(e.states.size()) + " NVLinks Down (" +
                (up ? std::to_string(up) + " up; down: links " + join_first(links, 12, ", ", "...") : "none up") +
                (nvswitch ? ")" : "): GPU-to-GPU traffic over these links falls back to PCIe") + diag_note(imp);
    f.evidence.push_back(Evidence::number("nvlinks down", static_cast<double>(down), "links", src(imp, e.line))
                             .expect(0, "0 (U for every supported link)"));
    f.evidence.back().value_text = e.states;
    f.action = nvswitch ? "Check the Fabric Manager log and the NvSwitch's SXid lines in the kernel log; reset the "
                          "fabric (all GPUs and NvSwitches) or reboot, then RMA the baseboard if links stay down."
                        : "Check the NVLink bridges (seated, present) or, on NVSwitch systems, Fabric Manager; look "
                          "for Xid 74 in the kernel log; reset the GPU or reboot, and RMA when the links stay Down.";
    out.push_back(std::move(f));
  }
  if (off) {
    Finding f;
    f.severity = Severity::kInfo;
    f.code = "dcgm_nvlink_disabled";
    f.subject = who;
    f.message = who + ": " + std::to_string(off) + " NVLink(s) Disabled (by configuration, not a failure)";
    f.evidence.push_back(Evidence::number("nvlinks disabled", static_cast<double>(off), "links", src(imp, e.line)));
    f.action = "Confirm the links are meant to be disabled (a partition or a driver setting).";
    out.push_back(std::move(f));
  }
}

std::string test_subject(const DcgmDiagTest& t, const std::string& status) {
  std::vector<std::string> gpus;
  for (const auto& r : t.results)
    if (r.status == status) {
      if (r.all) return "all GPUs";
      for (int g : r.gpus) gpus.push_back("GPU " + std::to_string(g));
    }
  return gpus.empty() ? "dcgmi diag " + t.name : join(gpus);  // a test name alone could read as a host
}

void diag_findings(const DcgmiImport& imp, std::vector<Finding>& out) {
  std::vector<std::string> skipped;
  for (const auto& t : imp.tests) {
    if (t.cut) continue;
    std::string st = t.status();
    if (st == "Skip") skipped.push_back(t.name);
    if (st != "Fail" && st != "Warn") continue;
    Finding f;
    f.severity = st == "Fail" ? Severity::kError : Severity::kWarn;
    f.code = st == "Fail" ? "dcgm_diag_fail" : "dcgm_diag_warn";
    f.subject = test_subject(t, st);
    f.message = "dcgmi diag " + (t.category.empty() ? "" : t.category + " / ") + t.name + ": " + st + " on " +
                f.subject + (t.warnings.empty() ? "" : ": " + t.warnings.front());
    f.evidence.push_back(Evidence::text(t.name, st, src(imp, t.line)).expect("Pass"));
    for (const auto& w : t.warnings) f.evidence.push_back(Evidence::text("Warning", w, src(imp, t.line)));
    f.action = "Follow DCGM's warning text; rerun `dcgmi diag -r 3` on the GPU after a reset, and RMA it when a "
               "hardware test keeps failing.";
    out.push_back(std::move(f));
  }
  if (skipped.empty()) return;
  Finding f;
  f.severity = Severity::kInfo;
  f.code = "dcgm_diag_skipped";
  f.subject = "dcgmi diag";
  f.message = std::to_string(skipped.size()) + " dcgmi diag test(s) skipped (not run, so not passed): " +
              join_first(skipped, 10, ", ", "...");
  f.action = "Run the skipped tests where they apply (a higher -r level, or the test's is_allowed parameter).";
  out.push_back(std::move(f));
}

nlohmann::json entities_json(const std::vector<DcgmLinkEntity>& list, const char* id_key) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : list)
    out.push_back({{id_key, e.id},
                   {"links", e.states.size()},
                   {"up", e.count('U')},
                   {"down", e.count('D')},
                   {"disabled", e.count('X')},
                   {"not_supported", e.count('_')},
                   {"states", e.states}});
  return out;
}

}  // namespace

std::vector<Finding> dcgmi_findings(const DcgmiImport& imp) {
  std::vector<Finding> out;
  for (const auto& g : imp.gpus) link_findings(imp, g, false, out);
  for (const auto& s : imp.nvswitches) link_findings(imp, s, true, out);
  diag_findings(imp, out);
  return out;
}

nlohmann::json dcgmi_data(const DcgmiImport& imp) {
  size_t up = 0, down = 0;
  for (const auto& g : imp.gpus) up += g.count('U'), down += g.count('D');
  nlohmann::json tests = nlohmann::json::array();
  std::map<std::string, size_t> counts;
  for (const auto& t : imp.tests) {
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : t.results) results.push_back({{"status", r.status}, {"gpus", r.gpus}, {"all", r.all}});
    tests.push_back({{"category", t.category},
                     {"name", t.name},
                     {"status", t.cut ? "unknown" : t.status()},
                     {"results", results},
                     {"warnings", t.warnings},
                     {"info", t.info},
                     {"cut", t.cut}});
    ++counts[t.cut ? "unknown" : t.status().empty() ? "none" : t.status()];
  }
  return {{"tool", "dcgmi"},
          {"link_status",
           {{"read", imp.link_status_read},
            {"gpus", entities_json(imp.gpus, "gpu_id")},
            {"nvswitches", entities_json(imp.nvswitches, "nvswitch_id")},
            {"nvswitches_found", !imp.nvswitches.empty()},
            {"links_up", up},
            {"links_down", down}}},
          {"diag",
           {{"read", imp.diag_read},
            {"complete", imp.diag_complete},
            {"metadata", imp.metadata},
            {"tests", tests},
            {"counts", counts}}}};
}

}  // namespace fabdiag
