// Importer for `ibv_devinfo` and `ibv_devinfo -v` (rdma-core): "hca_id:" blocks with fw_ver,
// vendor_part_id (the model: 4129 -> "MT4129", as hca_type spells it), board_id and "port:"
// blocks with state ("PORT_ACTIVE (4)"), active_mtu ("4096 (5)"), link_layer, and with -v
// active_width ("4X (2)"), active_speed ("25.0 Gbps (32)"), phys_state ("LINK_UP (5)") and the
// GID table ("GID[  3]:  ..., RoCE v2"). Without -v there is no rate and no phys_state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// Parses ibv_devinfo output (line numbers from `first_line`); port sources are
/// "SOURCE line N: hca_id mlx5_0 port 1". rate_gbps = width x per-lane speed when -v printed
/// both. rocev2_gids is set only when the GID lines carry their type (rdma-core 28+).
/// Errors: kParse naming `source` when there is no "hca_id:" line with a "port:" block.
/// With `gaps`, a text cut short is reported there (import/port_listing_gaps.h): a port block
/// without its "state" or "link_layer" line (with -v also "active_width", "active_speed" and,
/// on an InfiniBand-transport device, "phys_state"), an hca_id block with a phys_port_cnt and no
/// "port:" block (fewer is `ibv_devinfo -i N`); those fields stay unknown.
Result<std::vector<RdmaPortFacts>> parse_ibv_devinfo(std::string_view text, const std::string& source,
                                                     int first_line = 1, std::vector<Error>* gaps = nullptr);

}  // namespace fabdiag
