// Counter knowledge: what a counter name means, which category it belongs to, the name it is an
// alias of, its hardware width, its unit and how it is judged. The facts live in ONE data file,
// probes/counters/data/counters.json (facts: docs/domain.md; the file's format:
// docs/counters.md#the-knowledge-base-probescountersdatacountersjson), compiled into the binary by
// the build (probes/counters/counter_kb.h); these functions answer questions about one name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probes/counters/counter_model.h"

namespace fabdiag {

/// What the knowledge table says about one counter name.
struct CounterClass {
  CounterCategory category = CounterCategory::kUnknown;  ///< kUnknown when the name is not known.
  std::string canonical;  ///< Meaning-level name: bnxt_re "to_retransmits" -> "local_ack_timeout_err",
                          ///< irdma "cnpIgnored" -> "rp_cnp_ignored"; the name itself otherwise.
  std::string meaning;    ///< One sentence; empty when the name is not in the table.
  std::string family;     ///< Where the name comes from: "ib_pma", "ibta", "mlx5", "bnxt_re",
                          ///< "irdma", "mlx5e", "bnxt_en", "ice", "i40e", "netdev", "ethtool_std",
                          ///< "syslog"; empty when unknown.
  CounterRule rule = CounterRule::kUnknown;  ///< How it is judged (the entry's "rule").
  std::string source;     ///< Where the knowledge comes from (the entry's or its family's source).
  bool known = false;     ///< True: found in the knowledge base.
  /// For an unknown name: a category guessed from keywords ("...pause..." -> pause), a hint
  /// for a person only; never used to judge. Equal to `category` for known names.
  CounterCategory guess = CounterCategory::kUnknown;
};

/// Classifies a counter name read from `group`. Exact names are looked up first, then the name
/// with every run of digits replaced by '#' ("rx_prio3_pause" -> "rx_prio#_pause"). A name the
/// knowledge base does not have gets category kUnknown (and a keyword guess in `guess`).
/// Never fails.
/// Some aliases apply to one group only: bnxt_re's hw counter "rx_out_of_buffer" is the verbs
/// "out_of_buffer", while mlx5e's ethtool "rx_out_of_buffer" counts netdev RQ drops.
CounterClass classify_counter(CounterGroup group, std::string_view name);

/// Overflow behaviour of a counter.
struct CounterWidth {
  unsigned bits = 64;  ///< 0 = "32 or 64 depending on the port's PMA capability" (IB data counters).
  bool wraps = false;  ///< True: wraps modulo 2^bits; false: saturates at 2^bits - 1.
};

/// Width of a counter from the knowledge base: IB PortCounters widths from the IBTA table
/// (docs/domain.md#rdma-port-counters: symbol_error 16, link_downed 8, local_link_integrity_errors
/// 4, port_xmit_wait 32, ..., saturating); mlx5 hw_counters are 32-bit wrapping Q counters except
/// the 64-bit congestion and ICRC counters (docs/domain.md#mlx5-hw_counters), also for names the
/// base does not know (the family default); everything else 64. A family's widths apply only to its
/// drivers: bnxt_re's counters with mlx5 names are 64-bit. `driver` is the kernel driver of the
/// device ("mlx5_core"), or the ibdev name when the driver is unknown ("mlx5_0").
CounterWidth counter_width(CounterGroup group, std::string_view driver, std::string_view name);

/// Unit of a counter's value from the knowledge base ("bytes" for IB port_xmit_data /
/// port_rcv_data after the x4 conversion, "bits" for rx_bits_phy and corrected bits, "us" for
/// pause durations); for unknown names guessed from the name (bytes/octets/Octs -> "bytes",
/// *_bits -> "bits", duration -> "us"), else "count".
std::string counter_unit(CounterGroup group, std::string_view name);

/// Multiplier from the raw value to `counter_unit`: 4 for IB port_xmit_data / port_rcv_data
/// and their IBTA spellings PortXmitData / PortRcvData (4-octet words), 1 otherwise.
uint64_t counter_scale(CounterGroup group, std::string_view name);

/// Everything make_counter needs to know about one name, from a single knowledge-base lookup:
/// the same answers as classify_counter's category, rule and canonical name (without the
/// texts: meaning, family and source stay in the knowledge base), counter_unit, counter_scale
/// and counter_width. Called once per counter read, so it copies no more than that.
struct CounterFacts {
  CounterCategory category = CounterCategory::kUnknown;
  CounterRule rule = CounterRule::kUnknown;
  std::string canonical;
  std::string unit;
  uint64_t scale = 1;
  CounterWidth width;
};
CounterFacts counter_facts(CounterGroup group, std::string_view driver, std::string_view name);

/// True when the knowledge base has `name` for `group` (classify_counter(...).known, without
/// building the class).
bool counter_known(CounterGroup group, std::string_view name);

/// `name` with every run of ASCII digits replaced by one '#'.
std::string normalize_counter_name(std::string_view name);

/// One row of the knowledge base, flattened (for tests and listings).
struct CounterKnowledgeRow {
  std::string name;       ///< Exact, or with '#' for a run of digits.
  std::string family;
  CounterCategory category;
  std::string canonical;  ///< Empty = same as name.
  std::string meaning;
  CounterRule rule = CounterRule::kInfo;
};
/// The whole knowledge base, in file order.
std::vector<CounterKnowledgeRow> counter_knowledge_table();

}  // namespace fabdiag
