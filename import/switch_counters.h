// What the switch-side counter readers (SONiC `show interfaces counters`, Cumulus NVUE
// `nv show interface ... counters` / `link phy-detail`) share: the limits they judge a switch
// port by (docs/thresholds.md#switch-port-counters, each with its source) and how a finding
// names the port.
#pragma once

#include <string>

namespace fabdiag {

/// Drops as a share of the port's packets from which a drop finding is a warning (0.1 %;
/// heuristic: a lossless RoCE queue should drop nothing, an Ethernet port some ACL/WRED drops).
inline constexpr double kSwitchDropShareWarn = 1e-3;
/// Pre-FEC (raw) BER limits, as for host NICs (docs/thresholds.md#fec-and-pre-fec-ber).
inline constexpr double kSwitchPreFecBerWarn = 1e-6;
inline constexpr double kSwitchPreFecBerError = 1e-5;
/// Post-FEC (effective) BER above which frames are being lost: the IEEE 802.3 objective that
/// KP4 RS(544,514) FEC is built to meet is 1e-12 or better.
inline constexpr double kSwitchPostFecBerError = 1e-12;
/// Carrier transitions (one down plus one up per flap) from which a port is said to flap
/// (heuristic: a port that came up once shows 1 or 2).
inline constexpr unsigned kSwitchCarrierTransitionsWarn = 10;

/// "leaf01 Ethernet0" (the switch and its port), or the port alone when the switch is unknown.
std::string switch_port_subject(const std::string& switch_name, const std::string& port);

/// A ratio or rate with 3 significant digits: 2.4e-05 -> "2.4e-05", 0.1234 -> "0.123".
std::string format_g3(double v);

}  // namespace fabdiag
