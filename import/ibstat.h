// Importer for `ibstat` (infiniband-diags): "CA 'mlx5_0'" blocks with CA type, firmware and
// "Port N:" sub-blocks (State, Physical state, Rate, Base lid, SM lid, Link layer). States are
// normalized to the sysfs spelling ("Active" -> "4: ACTIVE", "Polling" -> "2: Polling"); "Rate"
// is a bare Gb/s number ("Rate: 40" on a port without link is not a speed: the rules only
// compare ports that are up).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// Parses ibstat output (line numbers from `first_line`). Each port's source is
/// "SOURCE line N: CA 'mlx5_0' port 1". Errors: kParse naming `source` when there is no
/// "CA '<name>'" line with a "Port N:" block.
/// With `gaps`, a text cut short is reported there (import/port_listing_gaps.h): a port block
/// without its "State", "Physical state", "Rate" or "Link layer" line, a CA listing fewer
/// "Port N:" blocks than its "Number of ports"; those fields stay unknown ("").
Result<std::vector<RdmaPortFacts>> parse_ibstat(std::string_view text, const std::string& source,
                                                int first_line = 1, std::vector<Error>* gaps = nullptr);

}  // namespace fabdiag
