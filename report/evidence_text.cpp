#include "report/evidence_text.h"

#include "report/humanize.h"

namespace fabdiag {

std::string evidence_text(const Evidence& e) {
  std::string s = e.metric + " = ";
  if (e.value) {
    s += (e.at_least ? ">= " : "") + format_sig(*e.value, 6);
    if (!e.unit.empty()) s += " " + e.unit;
  } else {
    s += e.value_text.empty() ? "?" : e.value_text;
  }
  if (e.value && !e.value_text.empty()) s += " (" + e.value_text + ")";
  if (e.threshold || !e.threshold_text.empty()) {
    s += "; limit ";
    s += e.threshold ? format_sig(*e.threshold, 6) + (e.unit.empty() ? "" : " " + e.unit)
                     : e.threshold_text;
    if (e.threshold && !e.threshold_text.empty()) s += " (" + e.threshold_text + ")";
  }
  if (!e.source.empty()) s += " [" + e.source + "]";
  return s;
}

}  // namespace fabdiag
