#include "core/repeats.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace fabdiag {
namespace {

std::string more_like_this(size_t n) {
  return "... and " + std::to_string(n) + " more like this";
}

}  // namespace

std::string error_kind(const std::string& m) {
  size_t end = 0;
  while (end < m.size() && !std::isdigit(static_cast<unsigned char>(m[end])) && m[end] != '"' &&
         m[end] != '\'')
    ++end;
  return m.substr(0, end);
}

void BoundedErrors::add(const std::string& kind, Error e) {
  ++total_;
  size_t& n = per_kind_[kind];
  if (max_ == 0 || n < max_) {
    ++n;
    kept_.push_back(std::move(e));
    dropped_[kind].after = kept_.size() - 1;
    return;
  }
  Dropped& d = dropped_[kind];
  ++d.count;
  ++dropped_total_;
  d.code = e.code;
  d.last_source = e.source;
}

std::vector<Error> BoundedErrors::take() {
  std::vector<std::vector<Error>> after(kept_.size());
  for (const auto& [kind, d] : dropped_)
    if (d.count > 0)
      after[d.after].push_back(make_error(d.code, more_like_this(d.count) + ": " + kind + " (the last at " +
                                                      d.last_source + ")",
                                          d.last_source));
  std::vector<Error> out;
  for (size_t i = 0; i < kept_.size(); ++i) {
    out.push_back(std::move(kept_[i]));
    for (auto& s : after[i]) out.push_back(std::move(s));
  }
  kept_.clear();
  per_kind_.clear();
  dropped_.clear();
  total_ = dropped_total_ = 0;
  return out;
}

size_t cap_findings(std::vector<Finding>& findings, size_t max_per_code) {
  if (max_per_code == 0) return 0;
  std::map<std::string, size_t> seen;
  std::map<std::string, std::vector<const Finding*>> dropped;
  for (const auto& f : findings)
    if (++seen[f.code] > max_per_code) dropped[f.code].push_back(&f);
  if (dropped.empty()) return 0;
  std::vector<Finding> out;
  std::map<std::string, size_t> kept;
  size_t total = 0;
  for (auto& f : findings) {
    size_t k = ++kept[f.code];
    if (k > max_per_code) continue;
    std::string code = f.code;
    out.push_back(std::move(f));
    auto it = dropped.find(code);
    if (k != max_per_code || it == dropped.end()) continue;
    const auto& more = it->second;
    Finding s;
    s.code = code;
    s.layer = out.back().layer;
    s.severity = more.front()->severity;
    std::vector<std::string> subjects;
    for (const Finding* d : more) {
      s.severity = std::max(s.severity, d->severity);
      if (subjects.size() < 10) subjects.push_back(d->subject);
    }
    s.subject = std::to_string(more.size()) + " more";
    s.message = more_like_this(more.size()) + " (" + code + "): ";
    for (size_t i = 0; i < subjects.size(); ++i) s.message += (i ? ", " : "") + subjects[i];
    if (more.size() > subjects.size()) s.message += ", ...";
    s.evidence.push_back(Evidence::number("findings not listed", static_cast<double>(more.size()), "count",
                                          "--max-findings " + std::to_string(max_per_code)));
    s.action = "Raise --max-findings (0 = no limit) to list them all.";
    total += more.size();
    out.push_back(std::move(s));
  }
  findings = std::move(out);
  return total;
}

size_t cap_errors(std::vector<Error>& errors, size_t max_per_kind) {
  if (max_per_kind == 0) return 0;
  BoundedErrors b(max_per_kind);
  for (auto& e : errors) {
    std::string kind = error_kind(e.message);  // before e is moved from
    b.add(kind, std::move(e));
  }
  size_t dropped = b.dropped();
  errors = b.take();
  return dropped;
}

}  // namespace fabdiag
