// Import of lldpd's `lldpctl` / `lldpcli show neighbors` output, JSON (`-f json`) or plain text:
// per local port the LLDP neighbour (switch chassis and system name, its port id and
// description, TTL, maximum frame size, autonegotiated MAU type, VLAN). The neighbours are the
// cabling facts a fabric topology is built from (which host port goes to which leaf port,
// which leaf to which spine). docs/fabric.md#lldpctl.
//
// JSON (lldpd >= 0.9): {"lldp": {"interface": [{"eth0": {...}}, ...]}}; with one interface
// "interface" is an object {"eth0": {...}}; "chassis" is {"<sysname>": {...}}, or the chassis
// itself when the neighbour sent no system name; "vlan", "capability", "mgmt-ip" are an object
// or an array. Text: "Interface:    eth0, via: LLDP, RID: 1, Time: ..." blocks with
// "ChassisID:", "SysName:", "PortID:", "PortDescr:", "TTL:", "MFS:", "MAU oper type:", "VLAN:".
// Keyvalue (`-f keyvalue`): "lldp.eth0.chassis.name=leaf01", "lldp.eth0.port.ifname=Ethernet4"
// lines (import/lldpctl_keyvalue.cpp), with or without pdsh/clush "host: " prefixes.
#pragma once

#include <cstddef>
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

/// The neighbour lldpd heard on one local port.
struct LldpNeighbor {
  std::string local_port;        ///< The host's (or switch's) own port: "ens14f0np0".
  std::string host;              ///< The host the line's "host: " prefix names (keyvalue); "" when none.
  std::string via;               ///< "LLDP", "CDPv2", ...
  std::string age;               ///< "55 days, 00:25:58" (JSON "age", text "Time:").
  std::string chassis_id_type;   ///< "mac", "local", "ip", ...
  std::string chassis_id;        ///< "00:00:00:00:00:01".
  std::string sysname;           ///< "switch01"; empty when the neighbour sent none.
  std::string sysdescr;          ///< "H3C Comware S6825-54HF".
  std::vector<std::string> mgmt_ips;
  std::vector<std::string> capabilities;  ///< Enabled capabilities: "Bridge", "Router".
  std::string port_id_type;      ///< "ifname", "mac", "local".
  std::string port_id;           ///< The neighbour's port: "Twenty-FiveGigE1/0/16".
  std::string port_descr;        ///< Operator text on the neighbour's port: "SDN_LAGG".
  std::optional<int> ttl_s;      ///< Seconds the announcement is kept.
  std::optional<int> mfs;        ///< Maximum frame size the neighbour's port announces, bytes.
  std::optional<bool> autoneg_supported, autoneg_enabled;
  std::string mau_oper_type;     ///< "25GbaseSR - 25GBASE-R PCS/PMA over multimode fiber".
  std::optional<double> speed_gbps;  ///< From the MAU type, else from the port name ("FourHundredGigE" -> 400).
  std::string speed_from;        ///< "mau" or "port name"; empty when unknown.
  std::vector<int> vlans;        ///< VLAN ids announced.
  std::optional<int> pvid;       ///< The port VLAN id (a VLAN marked pvid).
  size_t line = 0;               ///< Line of the block (text) or 0 (JSON).
};

/// What an lldpctl output says.
struct LldpImport {
  std::string source;
  std::string format;                   ///< "json", "text" or "keyvalue".
  std::vector<LldpNeighbor> neighbors;  ///< In the order listed.
  std::vector<Error> gaps;              ///< Unreadable blocks, a cut last line.
};

/// The link speed a MAU type or a switch port name implies, Gb/s: "25GbaseSR - ..." -> 25,
/// "10GigBaseCX4" -> 10, "1000BaseTFD" -> 1, "FourHundredGigE1/0/98" -> 400,
/// "Twenty-FiveGigE1/0/16" -> 25, "HundredGigE1/0/1" -> 100; nullopt when neither says.
std::optional<double> lldp_speed_of_mau(std::string_view mau);
std::optional<double> lldp_speed_of_port_name(std::string_view port);

/// Reads lldpctl output, JSON when the first non-blank character is '{', keyvalue when the first
/// line is one (is_lldpctl_keyvalue_line), else text (streamed for text and keyvalue: a
/// neighbour heard again on the same host and local port, a later capture, replaces the earlier
/// block; JSON is held whole, at most 64 MiB). Errors: kParse naming SOURCE:LINE when it is
/// neither (no "lldp" object, no "Interface:" block), or the JSON does not parse (a cut file).
Result<LldpImport> import_lldpctl(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// True for an `lldpctl -f keyvalue` line: "lldp.<interface>.<tag>...=value" where a known tag
/// (via, age, chassis, port, vlan, ...) follows the interface name, after any "host: " prefix.
bool is_lldpctl_keyvalue_line(std::string_view line);

/// The key under which a neighbour read again replaces the earlier one: host, local port, the
/// neighbour's chassis and port (a local port hearing two neighbours keeps both).
std::string lldp_neighbor_key(const LldpNeighbor& n);

/// The keyvalue form, `first` (numbered `first_no`) being its first line and `lines` the rest
/// (streamed). Lines with a new interface name (or host, or a second "via" of one interface)
/// start a neighbour. Errors: kParse naming SOURCE:LINE when no line is a keyvalue line.
Result<LldpImport> read_lldpctl_keyvalue(LineSource& lines, const std::string& source, const std::string& first,
                                         size_t first_no);

/// The JSON form alone (`lldpctl -f json`), whole in `text`. Errors: kParse naming SOURCE
/// when it does not parse (with the byte where it stopped) or holds no "lldp" object.
Result<LldpImport> parse_lldpctl_json(const std::string& text, const std::string& source);

/// The same over a text held in memory.
Result<LldpImport> import_lldpctl(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#lldpctl-findings): lldp_same_neighbor_port (warn: two local ports
/// see the same neighbour chassis and port: a loop or a cabling mistake), lldp_mfs_below_jumbo
/// (info: the neighbour's port announces a frame size under 9000 bytes; jumbo MTUs will not pass).
/// Port descriptions are operator text and never a finding.
std::vector<Finding> lldpctl_findings(const LldpImport& imp);

/// The envelope data: {format, neighbors: [{local_port, chassis: {id_type, id, sysname, descr,
/// mgmt_ips, capabilities}, port: {id_type, id, descr, ttl_s, mfs, autoneg, mau_oper_type},
/// speed_gbps, speed_from, vlans, pvid, age, via}], summary: {neighbors, switches}}.
nlohmann::json lldpctl_data(const LldpImport& imp);

}  // namespace fabdiag
