// Importer for `lspci -vvv` (pciutils): device headers ("17:00.0 PCI bridge: ..."), the bus
// numbers of bridges ("Bus: primary=16, secondary=17, subordinate=1c"), the PCI Express port
// type, LnkCap / LnkSta (with lspci's "(ok)" / "(downgraded)" notes), ACSCtl, NUMA node, driver
// and VPD product name. Also accepts `lspci -vvv | grep ACSCtl` (ACSCtl lines without headers:
// case 008). Everything else (VPD blocks, capability dumps, long trailing-space product names)
// is skipped. The listing becomes the HostFacts the check rules read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "probes/check/check_model.h"
#include "probes/topo/pci.h"

namespace fabdiag {

/// One function of an lspci -vvv listing.
struct LspciFunction {
  std::string bdf;             ///< "0000:17:00.0" (a missing domain is 0000).
  std::string class_name;      ///< "PCI bridge", "3D controller", "Ethernet controller".
  std::string description;     ///< Rest of the header ("Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) ...").
  PciKind kind = PciKind::kOther;
  std::string port_type;       ///< From "Express (v2) <type>": "Root Port", "Upstream Port",
                               ///< "Downstream Port", "Endpoint", "Legacy Endpoint"; "" if none.
  std::optional<uint32_t> secondary_bus;    ///< Bridges: "Bus: ... secondary=17".
  std::optional<uint32_t> subordinate_bus;  ///< Bridges: "subordinate=1c".
  PcieLink link;               ///< LnkCap -> max_*, LnkSta -> current_*.
  std::string speed_note;      ///< LnkSta speed note: "ok", "downgraded" or "".
  std::string width_note;      ///< LnkSta width note.
  std::optional<uint16_t> acs_control;  ///< ACSCtl bits.
  int acs_line = 0;            ///< Line of the ACSCtl entry.
  int numa_node = -1;          ///< "NUMA node: 0"; -1 unknown.
  std::string driver;          ///< "Kernel driver in use: mlx5_core".
  std::string product_name;    ///< VPD "Product Name:", trailing blanks removed.
  bool caps_denied = false;    ///< "Capabilities: <access denied>" (lspci run without root).
  int line = 0;                ///< Line of the header (of the first LnkCap/LnkSta line for a fragment).
  /// LnkCap/LnkSta lines with no device header above them (`lspci -vvv | grep -E
  /// 'LnkCap|LnkSta'`): a device the text does not name; `bdf` is empty.
  bool fragment = false;
};

/// An ACSCtl line outside any device block (grep output).
struct LspciAcsLine {
  uint16_t control = 0;
  int line = 0;
  std::string text;
};

/// A parsed listing.
struct LspciListing {
  std::vector<LspciFunction> functions;
  std::vector<LspciAcsLine> loose_acs;
  std::vector<Error> gaps;  ///< Lines that looked like LnkCap/LnkSta/ACSCtl but did not parse.
};

/// Parses lspci's ACSCtl/ACSCap flag list ("SrcValid+ TransBlk- ReqRedir+ ...") into ACS
/// control bits. nullopt when no known flag is present.
std::optional<uint16_t> parse_acs_flags(std::string_view text);

/// Parses `text` (line numbers start at `first_line`, for "###" sections of case files).
/// LnkCap/LnkSta lines outside any device block (a grep of them) become `fragment` functions,
/// judged as unnamed devices. Errors: kParse naming `source` when the text has no device
/// header, no LnkCap/LnkSta and no ACSCtl line.
Result<LspciListing> parse_lspci(std::string_view text, const std::string& source, int first_line = 1);

/// Facts for the check rules:
///  - pcie_links: GPUs, NICs and switch upstream ports, each with the LnkCap of the bridge
///    whose secondary bus is its bus as the parent's max (nullopt when there are no headers);
///  - acs_ports: bridges with an ACSCtl line (position known from the bus numbers, with the
///    GPUs/NICs in their bus range below), bridges whose capabilities lspci could not read
///    ("<access denied>": status kNeedsRoot), plus loose ACSCtl lines (position unknown);
///  - no AER, GPUDirect, IOMMU, port or counter facts (an lspci listing has none).
HostFacts lspci_to_facts(const LspciListing& listing, const std::string& source);

/// JSON of the listing: {functions: [...], loose_acs: [...]}.
void to_json(nlohmann::json& j, const LspciListing& l);

}  // namespace fabdiag
