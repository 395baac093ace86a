// Importer for `ibstatus` (infiniband-diags script): "Infiniband device 'mlx5_0' port 1 status:"
// blocks with default gid, base lid, sm lid, state ("4: ACTIVE"), phys state ("5: LinkUp"),
// rate ("400 Gb/sec (4X NDR)") and link_layer. ibstatus names no device model, so the rate rule
// compares its ports as one group and asks for the model when they differ.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// Parses ibstatus output (line numbers from `first_line`); port sources are
/// "SOURCE line N: mlx5_0 port 1". Errors: kParse naming `source` when there is no
/// "Infiniband device '<name>' port <n> status:" line.
/// With `gaps`, a port block without its "state", "phys state", "rate" or "link_layer" line (a
/// text cut short) is reported there (import/port_listing_gaps.h); those fields stay unknown.
Result<std::vector<RdmaPortFacts>> parse_ibstatus(std::string_view text, const std::string& source,
                                                  int first_line = 1, std::vector<Error>* gaps = nullptr);

}  // namespace fabdiag
