#include "triage/uplink_report.h"

#include <algorithm>
#include <string_view>

#include "core/text.h"

namespace fabdiag::triage {

namespace {

std::string leaf_names(const UplinkSuspect& s, const LeafMap& m, std::string_view sep) {
  std::vector<std::string> names;
  for (int l : s.leaves) names.push_back(m.leaves[static_cast<size_t>(l)]);
  return join(names, sep);
}

// A cross-leaf median is judged against cross_ratio (the node ratio over the oversubscription),
// an intra-leaf one against the node ratio.
Evidence median_evidence(const std::string& metric, double value, const UplinkScreen& u, bool cross) {
  Evidence e;
  const double ratio = cross && std::isfinite(u.cross_ratio) ? u.cross_ratio : u.ratio;
  e.metric = metric;
  e.value = value;
  e.unit = "bytes/s";
  e.threshold = ratio * u.reference_bytes_per_s;
  e.threshold_text = std::to_string(ratio).substr(0, 4) + " x the median intra-leaf pair";
  e.source = "pairwise screen, pairs classified by the --topology leaves";
  return e;
}

}  // namespace

TriageSuspect uplink_suspect(const UplinkSuspect& s, const UplinkScreen& u, const LeafMap& m,
                             const std::vector<std::string>& hosts) {
  TriageSuspect ts;
  const bool spine = s.leaves.size() > 2;
  ts.kind = spine ? "spine" : "leaf_uplink";
  ts.subject = leaf_names(s, m, "<->");
  for (int l : s.leaves) ts.leaves.push_back(m.leaves[static_cast<size_t>(l)]);
  for (int x : s.nodes) ts.hosts.push_back(hosts[static_cast<size_t>(x)]);
  ts.layer = Layer::kLocalization;
  ts.evidence.push_back(median_evidence("median cross-leaf pair bandwidth of " + leaf_names(s, m, " and ") + " over " +
                                            std::to_string(s.cross_pairs) + " pairs (" + std::to_string(s.dark_cells) +
                                            " of " + std::to_string(s.cells) + " leaf pairs dark)",
                                        s.cross_median_bytes_per_s, u, true));
  Evidence intra = median_evidence("median intra-leaf pair bandwidth of " + leaf_names(s, m, " and ") + " over " +
                                       std::to_string(s.intra_pairs) + " pairs: fine, so not its hosts",
                                   s.intra_median_bytes_per_s, u, false);
  intra.threshold_text = "at least " + intra.threshold_text;
  ts.evidence.push_back(intra);
  if (std::isfinite(s.others_cross_median_bytes_per_s)) {
    Evidence o = median_evidence("median cross-leaf pair bandwidth between the other leaves: fine",
                                 s.others_cross_median_bytes_per_s, u, true);
    o.threshold_text = "at least " + o.threshold_text;
    ts.evidence.push_back(o);
  }
  if (spine)
    ts.action = "Every cross-leaf pair is slow while every leaf is fine inside: check the spine switches and their "
                "uplink ports. If the fabric is oversubscribed by design (R:1), re-run with --oversubscription R: "
                "cross-leaf pairs at 1/R are then expected.";
  else if (s.leaves.size() == 2)
    ts.action = "Only tests between " + leaf_names(s, m, " and ") + " are slow; each leaf is fine inside. With two "
                "leaves the matrix cannot tell which leaf's uplink (or the spine between them): check both leaves' "
                "uplink ports (errors, FEC, speed, ECMP), or re-run with hosts under a third leaf.";
  else
    ts.action = "Tests across " + ts.subject + "'s uplinks are slow while its hosts are fine with each other: check " +
                ts.subject + "'s uplink ports to the spine (symbol/CRC errors, FEC, link speed, optics, ECMP "
                "hashing), not its hosts.";
  return ts;
}

std::string uplink_cleared_reason(const UplinkScreen& u, const LeafMap& m, int node) {
  for (const auto& s : u.suspects)
    if (std::find(s.nodes.begin(), s.nodes.end(), node) != s.nodes.end())
      return "slow only across leaves: explained by the uplink of " + leaf_names(s, m, " or ");
  return "explained by an uplink suspect";
}

}  // namespace fabdiag::triage
