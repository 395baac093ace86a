// Host PCIe rules of `fabdiag check`: link width/speed (the rules of rules/pcie_link_rules.h,
// reused as they are), ACS peer-to-peer redirect on bridges above GPUs and NICs, and AER error
// counters. Each rule is a function over the small structs of probes/check/check_model.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/result.h"
#include "probes/check/check_model.h"
#include "rules/pcie_link_rules.h"

namespace fabdiag {

/// judge_pcie_link() of every subject: width below the lower max of both ends = error, speed
/// below = warn, GPU speed below = info "re-check under load" (the idle downshift).
std::vector<Finding> pcie_link_findings(const std::vector<PcieLinkSubject>& links);

/// ACS findings (layer L4):
///  - a port whose position is known (sysfs, or an lspci tree) with RR, CR or EC set and a GPU
///    or NIC below: error "acs_redirect_enabled", subject = its BDF, naming what is below;
///  - ports of a listing without addresses (lspci | grep ACSCtl): one error
///    "acs_redirect_enabled" counting the redirecting lines ("5 of 11"), naming no BDF and
///    saying that it cannot tell which ports sit between a GPU and a NIC;
///  - ports whose ACS could not be read (64-byte config: needs root; unreadable): one info
///    "acs_unknown" listing them (unknown is not absence).
/// SrcValid, TransBlk, UpstreamFwd and DirectTrans alone never count. A status-4 completion
/// error in `wc_errors` (IBV_WC_LOC_PROT_ERR) is added as corroborating evidence.
std::vector<Finding> acs_findings(const std::vector<AcsPort>& ports, const std::vector<WcError>& wc_errors);

/// Parses one AER statistics file (aer_dev_correctable, aer_dev_fatal, aer_dev_nonfatal):
/// "<name> <count>" lines whose names vary by kernel ("RxErr", older "Receiver Error"), plus a
/// TOTAL_ERR_COR / TOTAL_ERR_FATAL / TOTAL_ERR_NONFATAL line. total = the TOTAL_ line, else the
/// sum of the named counts. Errors: kParse naming `source` when no line is "<name> <count>".
Result<AerGroup> parse_aer_text(std::string_view text, const std::string& source);

/// AER findings for one function (layer L4, subject = BDF): fatal or non-fatal total > 0 =
/// critical "pcie_aer_uncorrectable"; correctable total > 0 = info "pcie_aer_correctable" (one
/// snapshot cannot tell whether they grow).
std::vector<Finding> aer_findings(const AerSubject& subject);

}  // namespace fabdiag
