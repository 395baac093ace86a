// Counter knowledge: what a counter name means, which category it belongs to, the name it is an
// alias of, its hardware width and its unit. The facts live in ONE table (counter_classes.cpp,
// from DOMAIN.md sections 1, 3, 4); a later issue moves that table into a data file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probes/counter_model.h"

namespace fabdiag {

/// What the knowledge table says about one counter name.
struct CounterClass {
  CounterCategory category = CounterCategory::kOther;
  std::string canonical;  ///< Meaning-level name: bnxt_re "to_retransmits" -> "local_ack_timeout_err",
                          ///< irdma "cnpIgnored" -> "rp_cnp_ignored"; the name itself otherwise.
  std::string meaning;    ///< One sentence; empty when the name is not in the table.
  std::string family;     ///< Where the name comes from: "ib_pma", "mlx5", "bnxt_re", "irdma",
                          ///< "mlx5e", "bnxt_en", "ice", "i40e", "netdev"; empty when guessed.
  bool known = false;     ///< True: found in the table. False: category guessed from keywords.
};

/// Classifies a counter name read from `group`. Exact names are looked up first, then the name
/// with every run of digits replaced by '#' ("rx_prio3_pause" -> "rx_prio#_pause"), then a
/// keyword guess ("...pause..." -> pause, "...crc..." -> phy_error, ...). Never fails.
/// Some aliases apply to one group only: bnxt_re's hw counter "rx_out_of_buffer" is the verbs
/// "out_of_buffer", while mlx5e's ethtool "rx_out_of_buffer" counts netdev RQ drops.
CounterClass classify_counter(CounterGroup group, std::string_view name);

/// Overflow behaviour of a counter.
struct CounterWidth {
  unsigned bits = 64;  ///< 0 = "32 or 64 depending on the port's PMA capability" (IB data counters).
  bool wraps = false;  ///< True: wraps modulo 2^bits; false: saturates at 2^bits - 1.
};

/// Width of a counter: IB PortCounters widths from the IBTA table (DOMAIN.md section 1:
/// symbol_error 16, link_downed 8, local_link_integrity_errors 4, port_xmit_wait 32, ...,
/// saturating); mlx5 hw_counters are 32-bit wrapping Q counters except the 64-bit congestion
/// and ICRC counters (DOMAIN.md section 3); everything else 64. `driver` is the kernel driver
/// of the device ("mlx5_core"), or the ibdev name when the driver is unknown ("mlx5_0").
CounterWidth counter_width(CounterGroup group, std::string_view driver, std::string_view name);

/// Unit of a counter's value: "bytes" (names with bytes/octets/Octs, and IB port_xmit_data /
/// port_rcv_data after the x4 conversion), "bits" (rx_bits_phy, corrected bits, per-lane error
/// bits), "us" (pause durations), else "count".
std::string counter_unit(CounterGroup group, std::string_view name);

/// Multiplier from the raw value to `counter_unit`: 4 for IB port_xmit_data / port_rcv_data
/// (4-octet words), 1 otherwise.
uint64_t counter_scale(CounterGroup group, std::string_view name);

/// `name` with every run of ASCII digits replaced by one '#'.
std::string normalize_counter_name(std::string_view name);

/// One row of the knowledge table (exposed for tests and a later data-file export).
struct CounterKnowledgeRow {
  std::string name;       ///< Exact, or with '#' for a run of digits.
  std::string family;
  CounterCategory category;
  std::string canonical;  ///< Empty = same as name.
  std::string meaning;
};
/// The whole table, in table order.
std::vector<CounterKnowledgeRow> counter_knowledge_table();

}  // namespace fabdiag
