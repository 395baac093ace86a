// The `dcgmi diag` result table (import/dcgmi.h).
#include "core/text.h"
#include "import/common.h"
#include "import/dcgmi.h"
#include "import/format_detect.h"

namespace fabdiag {

namespace {

// DCGM wraps a long cell at this many characters, cutting words ("Reset GPU. R" / "estart DCGM").
constexpr size_t kWrapWidth = 45;
// Bounds on what one input can make the reader hold (a diag table has a few dozen rows).
constexpr size_t kMaxTests = 4096, kMaxNotes = 64, kMaxNoteBytes = 4096, kMaxGaps = 256;

int rank(const std::string& s) {
  if (s == "Fail") return 4;
  if (s == "Warn") return 3;
  if (s == "Pass") return 2;
  if (s == "Skip") return 1;
  return 0;
}

// "Fail - GPU: 0", "Pass - GPUs: 0, 1", "Pass - All", "Skip"; nullopt for other text.
std::optional<DcgmDiagResult> parse_result(const std::string& cell) {
  auto words = split_ws(cell);
  if (words.empty() || rank(words[0]) == 0) return std::nullopt;
  DcgmDiagResult r;
  r.status = words[0];
  auto dash = cell.find(" - ");
  if (dash == std::string::npos) return words.size() == 1 ? std::optional(r) : std::nullopt;
  std::string who = trim(cell.substr(dash + 3));
  if (who == "All") r.all = true;
  else if (auto colon = who.find(':'); colon != std::string::npos && starts_with(who, "GPU"))
    for (const auto& part : split(who.substr(colon + 1), ','))
      if (auto n = parse_u64(trim(part)); n && *n < 4096) r.gpus.push_back(static_cast<int>(*n));
  return r;
}

// "|-----  Metadata  ----------+-----|" or "+-----  Integration  -------+----+": the category.
std::optional<std::string> category_of(const std::string& t) {
  if (t.size() < 3 || (t[0] != '|' && t[0] != '+') || t[1] != '-') return std::nullopt;
  auto plus = t.find('+', 1);
  std::string name = trim(t.substr(1, plus == std::string::npos ? std::string::npos : plus - 1));
  while (!name.empty() && name.front() == '-') name.erase(0, 1);
  while (!name.empty() && name.back() == '-') name.pop_back();
  name = trim(name);
  if (name.empty()) return std::nullopt;
  return name;
}

bool is_border(const std::string& t) {
  if (t.size() < 3 || t[0] != '+') return false;
  return t.find_first_not_of("+-=") == std::string::npos;
}

void append_piece(std::string& text, std::string& last, const std::string& piece) {
  // A piece as wide as the cell was cut where the width ran out, mid-word or not.
  bool mid_word = last.size() >= kWrapWidth && !text.empty() && !piece.empty();
  if (text.size() > kMaxNoteBytes) return;
  if (!text.empty() && !mid_word) text += ' ';
  text += piece;
  last = piece;
}

void row(const std::string& t, size_t line_no, DcgmDiagState& s, DcgmiImport& imp) {
  bool cut = t.size() < 2 || t.back() != '|';
  auto cells = split(t.substr(1, cut ? std::string::npos : t.size() - 2), '|');
  std::string name = trim(cells[0]), value = cells.size() > 1 ? trim(cells[1]) : "";
  s.rows = true;
  if (s.category == "Metadata" && !name.empty()) {
    if (!cut && (imp.metadata.size() < kMaxNotes || imp.metadata.count(name))) imp.metadata[name] = value;
    s.into = DcgmDiagState::Into::kNone;
  } else if (name == "Warning" || name == "Info") {
    s.into = name == "Warning" ? DcgmDiagState::Into::kWarning : DcgmDiagState::Into::kInfo;
    if (!imp.tests.empty()) {
      auto& list = name == "Warning" ? imp.tests.back().warnings : imp.tests.back().info;
      if (list.size() < kMaxNotes) list.push_back(value);
    }
    s.last_piece = value;
  } else if (!name.empty()) {
    DcgmDiagTest test;
    test.category = s.category;
    test.name = name;
    test.line = line_no;
    test.cut = cut;
    if (auto r = parse_result(value)) test.results.push_back(*r);
    if (imp.tests.size() < kMaxTests) imp.tests.push_back(std::move(test));
    else ++imp.tests_not_kept;
    s.into = DcgmDiagState::Into::kNone;
  } else if (!imp.tests.empty()) {  // a continuation row
    auto& test = imp.tests.back();
    if (auto r = parse_result(value); r && s.into == DcgmDiagState::Into::kNone) {
      if (test.results.size() < kMaxNotes) test.results.push_back(*r);
    }
    else if (s.into != DcgmDiagState::Into::kNone) {
      auto& list = s.into == DcgmDiagState::Into::kWarning ? test.warnings : test.info;
      if (!list.empty()) append_piece(list.back(), s.last_piece, value);
    }
  }
  if (cut && imp.gaps.size() < kMaxGaps) {
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "dcgmi diag table cut in the row " + quote_line(name.empty() ? value : name) +
                                      " (no closing '|'): that row and the tests after it are unknown, not passed",
                                  line_source(imp.source, line_no)));
  }
  if (cut) {
    if (!imp.tests.empty() && !name.empty()) imp.tests.back().cut = true;
    s.in_table = false;  // what follows is not this table
  }
}

}  // namespace

std::string DcgmDiagTest::status() const {
  std::string worst;
  for (const auto& r : results)
    if (rank(r.status) > rank(worst)) worst = r.status;
  return worst;
}

bool read_dcgm_diag_line(std::string_view raw, size_t line_no, DcgmDiagState& s, DcgmiImport& imp) {
  std::string t = trim(raw);
  if (t.empty()) return false;
  if (t == "Successfully ran diagnostic for group.") return imp.diag_read = true;
  if (!s.in_table) {
    if (auto c = category_of(t)) {  // a paste that starts below the header, at a category row
      s = DcgmDiagState{};
      s.in_table = s.confirmed = imp.diag_read = true;
      imp.diag_complete = false;
      s.category = *c;
      if (imp.gaps.size() < kMaxGaps)
        imp.gaps.push_back(make_error(ErrorCode::kParse,
                                      "dcgmi diag table starts at its category row " + quote_line(t) +
                                          ": the header and the tests above it are not in the input (unknown, not passed)",
                                      line_source(imp.source, line_no)));
      return true;
    }
    if (!is_border(t)) return false;
    s = DcgmDiagState{};
    s.in_table = true;
    return true;
  }
  if (!s.confirmed) {  // a border opens a diag table only when its header or a category follows
    bool header = t[0] == '|' && split_ws(t) == std::vector<std::string>{"|", "Diagnostic", "|", "Result", "|"};
    if (is_border(t)) return true;
    if (!header && !category_of(t)) {
      s.in_table = false;
      return false;
    }
    s.confirmed = imp.diag_read = true;
    imp.diag_complete = false;
    if (header) return true;
  }
  if (auto c = category_of(t)) {
    s.category = *c;
    s.into = DcgmDiagState::Into::kNone;
    return true;
  }
  if (is_border(t)) {
    if (t.find('=') == std::string::npos && s.rows) {
      imp.diag_complete = true;
      s.in_table = false;
    }
    return true;
  }
  if (t[0] != '|') {
    if (imp.gaps.size() < kMaxGaps)
      imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "dcgmi diag table ends without its bottom border at " + quote_line(t) +
                                      ": the tests after the last row are unknown, not passed",
                                  line_source(imp.source, line_no)));
    s.in_table = false;
    return false;
  }
  row(t, line_no, s, imp);
  return true;
}

void finish_dcgm_diag(const DcgmDiagState& s, DcgmiImport& imp) {
  if (!s.in_table || !s.confirmed) return;
  std::string last = imp.tests.empty() ? "its header" : quote_line(imp.tests.back().name);
  imp.gaps.push_back(make_error(ErrorCode::kParse,
                                "dcgmi diag table ends after " + last +
                                    " without its bottom border: the tests after it are unknown, not passed",
                                imp.source));
}

}  // namespace fabdiag
