// NVIDIA's Xid catalog as data: import/data/xid_catalog.json (embedded in the binary at build
// time, like the counter knowledge base) gives per Xid code its mnemonic, description and the
// catalog's resolution buckets (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html),
// and per bucket the severity and the action fabdiag reports. docs/gpu_readers.md#xid-lines.
#pragma once

#include <optional>
#include <string>

#include "core/finding.h"

namespace fabdiag {

/// What the catalog says about one Xid code.
struct XidInfo {
  int xid = 0;
  std::string mnemonic;       ///< "GSP_RPC_TIMEOUT"; "" for a code not in the catalog.
  std::string description;    ///< "GSP RPC Timeout"; may be empty.
  std::string immediate;      ///< Resolution bucket, immediate action: "RESET_GPU", "RESTART_BM", ...
  std::string investigatory;  ///< Resolution bucket, investigatory action.
  Severity severity = Severity::kWarn;  ///< Of the immediate bucket (kWarn for an unknown code).
  std::string action;                   ///< What to do, in our words, from the immediate bucket.
};

/// The entry of `xid`; for a code the catalog does not list: mnemonic empty, severity kWarn and
/// an action that names the catalog. The catalog is parsed once (first call); a damaged
/// embedded file aborts (it is a build input, checked by the unit tests).
XidInfo xid_info(int xid);

/// The severity and action of the Xid 154 recovery label ("GPU Reset Required", "Node Reboot
/// Required", "Drain and Reset", "Drain P2P", "None"); nullopt for another label.
std::optional<std::pair<Severity, std::string>> xid154_recovery(const std::string& label);

}  // namespace fabdiag
