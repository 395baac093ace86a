#include "rules/pcie_link_rules.h"

#include <algorithm>
#include <cstdio>

namespace fabdiag {

namespace {

constexpr double kSpeedEpsilonGts = 0.01;  // sysfs prints one decimal; 2.5 vs 2.5 must be equal

std::string gts_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GT/s", v);
  return buf;
}

std::string sys_attr(const std::string& bdf, const char* attr) {
  return "/sys/bus/pci/devices/" + bdf + "/" + attr;
}

// Where the lower end's value `attr` was read: its sysfs attribute, or the saved text.
std::string attr_source(const PcieLinkSubject& s, const char* attr) {
  return s.text_source.empty() ? sys_attr(s.bdf, attr) : s.text_source;
}

std::string ends_text_width(const PcieLinkSubject& s) {
  std::string t = "device max x" + std::to_string(*s.link.max_width);
  if (!s.parent_bdf.empty())
    t += s.parent_max_width ? ", upstream port " + s.parent_bdf + " max x" + std::to_string(*s.parent_max_width)
                            : ", upstream port " + s.parent_bdf + " max unknown";
  return t;
}

std::string ends_text_speed(const PcieLinkSubject& s) {
  std::string t = "device max " + gts_text(*s.link.max_speed_gts);
  if (!s.parent_bdf.empty())
    t += s.parent_max_speed_gts ? ", upstream port " + s.parent_bdf + " max " + gts_text(*s.parent_max_speed_gts)
                                : ", upstream port " + s.parent_bdf + " max unknown";
  return t;
}

// Evidence of the two maxima the limit comes from.
void add_max_evidence(Finding& f, const PcieLinkSubject& s, bool width) {
  const char* attr = width ? "max_link_width" : "max_link_speed";
  const char* unit = width ? "lanes" : "GT/s";
  f.evidence.push_back(Evidence::number(std::string(attr) + " (device)",
                                        width ? static_cast<double>(*s.link.max_width) : *s.link.max_speed_gts,
                                        unit, attr_source(s, attr)));
  bool parent_known = width ? s.parent_max_width.has_value() : s.parent_max_speed_gts.has_value();
  if (s.parent_bdf.empty() || !parent_known) return;
  f.evidence.push_back(Evidence::number(std::string(attr) + " (upstream port)",
                                        width ? static_cast<double>(*s.parent_max_width) : *s.parent_max_speed_gts,
                                        unit, sys_attr(s.parent_bdf, attr)));
}

}  // namespace

std::optional<double> link_limit_speed_gts(const PcieLinkSubject& s) {
  if (!s.link.max_speed_gts) return std::nullopt;
  if (!s.parent_max_speed_gts) return s.link.max_speed_gts;
  return std::min(*s.link.max_speed_gts, *s.parent_max_speed_gts);
}

std::optional<int> link_limit_width(const PcieLinkSubject& s) {
  if (!s.link.max_width) return std::nullopt;
  if (!s.parent_max_width) return s.link.max_width;
  return std::min(*s.link.max_width, *s.parent_max_width);
}

std::vector<Finding> judge_pcie_link(const PcieLinkSubject& s) {
  std::vector<Finding> out;
  auto width_limit = link_limit_width(s);
  if (width_limit && s.link.current_width && *s.link.current_width < *width_limit) {
    int cur = *s.link.current_width;
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kPhysical;
    f.code = "pcie_width_downgraded";
    f.subject = s.bdf.empty() ? s.label : s.bdf;
    if (cur == 0) {
      f.message = s.label + " PCIe link is down (width 0) although both ends support x" +
                  std::to_string(*width_limit) + " (" + ends_text_width(s) + ")";
    } else {
      f.message = s.label + " PCIe link trained at x" + std::to_string(cur) + " although both ends support x" +
                  std::to_string(*width_limit) + " (" + ends_text_width(s) + "): only " +
                  std::to_string(cur) + " of " + std::to_string(*width_limit) +
                  " lanes carry host and GPUDirect traffic";
    }
    f.evidence.push_back(Evidence::number("current_link_width", cur, "lanes", attr_source(s, "current_link_width"))
                             .expect(*width_limit, "lower max_link_width of the two ends"));
    add_max_evidence(f, s, true);
    f.action =
        "Reseat the card and its riser or cable, check in the BIOS that the slot is not "
        "bifurcated or set narrower, and look in dmesg for 'limited by' or AER lines naming " +
        s.bdf + "; if it stays narrow, move the card to another slot or replace the riser.";
    out.push_back(std::move(f));
  }

  auto speed_limit = link_limit_speed_gts(s);
  if (speed_limit && s.link.current_speed_gts &&
      *s.link.current_speed_gts < *speed_limit - kSpeedEpsilonGts) {
    double cur = *s.link.current_speed_gts;
    Finding f;
    f.layer = Layer::kPhysical;
    f.subject = s.bdf.empty() ? s.label : s.bdf;
    f.evidence.push_back(Evidence::number("current_link_speed", cur, "GT/s", attr_source(s, "current_link_speed"))
                             .expect(*speed_limit, "lower max_link_speed of the two ends"));
    add_max_evidence(f, s, false);
    if (s.is_gpu) {
      f.severity = Severity::kInfo;
      f.code = "pcie_speed_low_at_idle";
      f.message = s.label + " PCIe link at " + gts_text(cur) + ", below the " + gts_text(*speed_limit) +
                  " both ends support (" + ends_text_speed(s) +
                  "): GPUs lower the link speed when idle, so re-check under load";
      f.action =
          "Re-check while the GPU is busy (during fabdiag bench, or nvidia-smi -q -d PCIE while a "
          "job runs); only a low speed under load is a fault: then check the BIOS PCIe Gen "
          "setting and reseat the GPU.";
    } else {
      f.severity = Severity::kWarn;
      f.code = "pcie_speed_downgraded";
      f.message = s.label + " PCIe link runs at " + gts_text(cur) + " although both ends support " +
                  gts_text(*speed_limit) + " (" + ends_text_speed(s) + ")";
      f.action =
          "Check the BIOS PCIe speed (Gen) setting of this slot, reseat the card and its riser, "
          "and re-check under load; a link that stays slow under load needs the riser, retimer "
          "or card replaced.";
    }
    out.push_back(std::move(f));
  }
  return out;
}

void judge_topology_pcie_links(TopologyReport& report) {
  for (const auto& s : pcie_link_subjects(report))
    for (auto& f : judge_pcie_link(s)) report.findings.push_back(std::move(f));
}

}  // namespace fabdiag
