// Import of Mellanox OFED's `ibdev2netdev` (which netdev each RDMA port drives), plain
//    mlx5_0 port 1 ==> ib0 (Up)
// and -v, with the PCI address, the adapter's part and description, firmware and port state
//    0000:17:00.0 mlx5_0 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) ... fw 20.31.1014 port 1 (ACTIVE) ==> ib0 (Up)
// Lines may carry a pdsh/clush "host: " prefix (import/host_prefix.h): one file, many hosts.
// docs/fabric.md#ibdev2netdev.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One "ibdev port N ==> netdev (State)" line.
struct Ibdev2netdevPort {
  std::string host;        ///< From a "host: " prefix; "" when none.
  std::string ibdev;       ///< "mlx5_0".
  uint32_t port = 0;       ///< 1-based.
  std::string netdev;      ///< "ib0", "ens1f0".
  std::string link;        ///< The netdev's state as printed: "Up", "Down".
  std::string port_state;  ///< -v only: the RDMA port state ("ACTIVE", "DOWN", "INIT"); "" otherwise.
  std::string pci_bdf;     ///< -v only: "0000:17:00.0" when printed.
  std::string part;        ///< -v only: "MT4123".
  std::string board;       ///< -v only: the part number or PSID after it ("MCX653105A-HDAT").
  std::string description; ///< -v only: "ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, ...".
  std::string fw;          ///< -v only: "20.31.1014".
  std::optional<double> max_rate_gbps;  ///< -v only: the largest "N Gb/s" / "N GbE" of the description (the adapter's rate, not the link's).
  size_t line = 0;
  /// True when the netdev is Up and (when -v printed it) the port is ACTIVE.
  bool up() const;
};

/// What one ibdev2netdev output says.
struct Ibdev2netdevImport {
  std::string source;
  bool verbose = false;  ///< Some line had the -v form.
  std::vector<Ibdev2netdevPort> ports;  ///< One per host, ibdev and port: a later line of one replaces it.
  size_t repeated = 0;                  ///< Lines that replaced an earlier one of their port.
  std::vector<Error> gaps;
};

/// Reads ibdev2netdev text (streamed; a port listed again keeps its last line). Errors: kParse
/// naming SOURCE:LINE when no line has the "ibdev port N ==> netdev (State)" shape. Other lines
/// are one gap ("N line(s) not understood").
Result<Ibdev2netdevImport> import_ibdev2netdev(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<Ibdev2netdevImport> import_ibdev2netdev(std::string_view text, const std::string& source);

/// True when `line` (a "host: " prefix allowed) has the shape "WORD port N ==> WORD (WORD)":
/// the marker format detection uses.
bool is_ibdev2netdev_line(std::string_view line);

/// Findings (docs/fabric.md#ibdev2netdev-findings): ibdev2netdev_port_down (warn: a netdev
/// "(Down)" or, with -v, a port not ACTIVE; names host, ibdev, port and netdev).
std::vector<Finding> ibdev2netdev_findings(const Ibdev2netdevImport& imp);

/// The envelope data: {verbose, ports[] {host, ibdev, port, netdev, link, port_state, pci_bdf,
/// part, board, description, fw, max_rate_bits_per_s, up, line}, ports_total, ports_down}.
nlohmann::json ibdev2netdev_data(const Ibdev2netdevImport& imp);

}  // namespace fabdiag
