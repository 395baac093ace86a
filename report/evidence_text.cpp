#include "report/evidence_text.h"

#include "report/humanize.h"

namespace fabdiag {

std::string evidence_text(const Evidence& e) {
  std::string s = e.metric + " = ";
  // A rate reads in GB/s or MB/s; any other unit prints as measured, up to 6 digits.
  const bool rate = e.unit == "bytes/s";
  const auto with_unit = [&](double v) {
    return rate ? format_bytes_per_s(v) : format_sig(v, 6) + (e.unit.empty() ? "" : " " + e.unit);
  };
  if (e.value) {
    s += (e.at_least ? ">= " : "") + with_unit(*e.value);
  } else {
    s += e.value_text.empty() ? "?" : e.value_text;
  }
  if (e.value && !e.value_text.empty()) s += " (" + e.value_text + ")";
  if (e.threshold || !e.threshold_text.empty()) {
    s += "; limit ";
    s += e.threshold ? with_unit(*e.threshold) : e.threshold_text;
    if (e.threshold && !e.threshold_text.empty()) s += " (" + e.threshold_text + ")";
  }
  if (!e.source.empty()) s += " [" + e.source + "]";
  return s;
}

}  // namespace fabdiag
