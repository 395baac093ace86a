// Finding: one diagnosed fact with its evidence and the next action. Every command that judges
// something (topo, counters, check, baseline diff, triage) reports through this one model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fabdiag {

/// How bad. Ordered: kInfo < kWarn < kError < kCritical.
enum class Severity { kInfo = 0, kWarn = 1, kError = 2, kCritical = 3 };

/// The layer of the walk (docs/ARCHITECTURE.md#the-layered-walk) a finding belongs to.
enum class Layer {
  kApplication = 0,   ///< L0: NCCL/MPI configuration, transport choice, collective vs baseline.
  kCollective = 1,    ///< L1: whole-group or per-node collective bandwidth.
  kLocalization = 2,  ///< L2: which node or link (pairwise matrix).
  kTransport = 3,     ///< L3: RDMA transport and NIC: loss, retransmits, congestion (ECN/CNP).
  kPhysical = 4,      ///< L4: link and host data path: port state/rate, PHY errors, PCIe, ACS.
};

/// "info", "warn", "error", "critical".
const char* to_string(Severity s);
/// "L0".."L4".
const char* to_string(Layer l);
/// Parses the names above; nullopt for anything else.
std::optional<Severity> parse_severity(const std::string& s);
std::optional<Layer> parse_layer(const std::string& s);

/// One measured or read fact behind a finding.
struct Evidence {
  std::string metric;                ///< e.g. "symbol_error delta", "current_link_width".
  std::optional<double> value;       ///< Numeric value in `unit` (raw base unit), if numeric.
  std::string value_text;            ///< Textual value when not numeric ("2: Polling").
  std::string unit;                  ///< "count", "count/s", "bytes/s", "lanes", "GT/s", ...
  std::optional<double> threshold;   ///< The limit it was compared with, same unit.
  std::string threshold_text;        ///< Textual expectation ("4: ACTIVE", ">= 16 lanes").
  std::string source;                ///< Where it was read: sysfs path, ethtool stat, formula.
  bool at_least = false;             ///< Value is a saturated counter: "at least this many".

  /// The builder every judging rule uses:
  ///   Evidence::number("current_link_width", 8, "lanes", path).expect(16, ">= 16 lanes")
  ///   Evidence::text("state", "1: DOWN", path).expect("4: ACTIVE")
  /// A numeric reading of `metric` in `unit` (nullopt = not measured), read at `source`.
  static Evidence number(std::string metric, std::optional<double> value, std::string unit,
                         std::string source);
  /// A textual reading of `metric` (value_text), read at `source`.
  static Evidence text(std::string metric, std::string value_text, std::string source);
  /// Sets the limit compared with (same unit as value) and its wording; returns *this.
  Evidence& expect(std::optional<double> limit, std::string limit_text);
  /// Sets only the textual expectation ("4: ACTIVE"); returns *this.
  Evidence& expect(std::string limit_text);
};

/// A diagnosis: what, where, how bad, why we think so, what to do.
struct Finding {
  Severity severity = Severity::kInfo;
  Layer layer = Layer::kPhysical;
  std::string code;     ///< Stable machine id, snake_case: "pcie_width_downgraded".
  std::string subject;  ///< What it is about: host, "mlx5_0/1", netdev, pci_bdf, GPU, "a<->b".
  std::string message;  ///< One sentence for a person.
  std::vector<Evidence> evidence;
  std::string action;   ///< The next thing to do.
};

/// JSON forms (the versioned contract; see docs/SCHEMA.md).
void to_json(nlohmann::json& j, const Evidence& e);
void to_json(nlohmann::json& j, const Finding& f);
void from_json(const nlohmann::json& j, Evidence& e);
void from_json(const nlohmann::json& j, Finding& f);

/// Highest severity among `findings`, or nullopt when empty.
std::optional<Severity> worst_severity(const std::vector<Finding>& findings);

}  // namespace fabdiag
