// PCI configuration space: the extended capability walk (PCIe base spec 7.6;
// docs/domain.md#pci-config-space-and-acs) and the ACS Control register it leads to. The config
// image comes from /sys/bus/pci/devices/<bdf>/config, which the kernel cuts to the first 64 bytes
// for readers without CAP_SYS_ADMIN: then ACS is unknown (needs root), never "absent".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/fs_root.h"
#include "core/result.h"

namespace fabdiag {

/// How far the ACS control register of a port could be read.
enum class AcsStatus {
  kRead,              ///< `control` holds the ACS Control register.
  kNoCapability,      ///< Extended config space read; no ACS capability (ID 0x000D) in it.
  kNeedsRoot,         ///< Config file of 64 bytes: unprivileged read, ACS unknown.
  kNoExtendedSpace,   ///< Config space of 256 bytes: no extended space, ACS unknown.
  kUnreadable,        ///< The config file could not be read or its capability list is broken.
};
/// "read", "no_capability", "needs_root", "no_extended_space", "unreadable".
const char* to_string(AcsStatus s);

/// ACS Control register bits (linux include/uapi/linux/pci_regs.h PCI_ACS_*).
inline constexpr uint16_t kAcsSrcValid = 0x0001;       ///< SV Source Validation.
inline constexpr uint16_t kAcsTransBlock = 0x0002;     ///< TB Translation Blocking.
inline constexpr uint16_t kAcsReqRedirect = 0x0004;    ///< RR P2P Request Redirect.
inline constexpr uint16_t kAcsCmpltRedirect = 0x0008;  ///< CR P2P Completion Redirect.
inline constexpr uint16_t kAcsUpstreamFwd = 0x0010;    ///< UF Upstream Forwarding.
inline constexpr uint16_t kAcsEgressCtrl = 0x0020;     ///< EC P2P Egress Control.
inline constexpr uint16_t kAcsDirectTrans = 0x0040;    ///< DT Direct Translated P2P.
/// The bits that send peer-to-peer traffic up to the root complex (RR | CR | EC).
inline constexpr uint16_t kAcsP2pRedirectMask = kAcsReqRedirect | kAcsCmpltRedirect | kAcsEgressCtrl;

/// lspci's names of the set bits of an ACS Control value, e.g. "SrcValid+ ReqRedir+ CmpltRedir+";
/// "none" when no bit is set.
std::string acs_control_text(uint16_t control);


/// Extended capability ID of Access Control Services.
inline constexpr uint16_t kExtCapAcs = 0x000D;
/// Extended capability ID of Advanced Error Reporting.
inline constexpr uint16_t kExtCapAer = 0x0001;
/// Offset of the first extended capability header.
inline constexpr uint16_t kExtCapStart = 0x100;

/// Offset of extended capability `id` in `config` (a little-endian config-space image).
/// Walk from 0x100: each header dword is ID bits 15:0, version 19:16, next offset 31:20;
/// a header of 0 or 0xFFFFFFFF or a next offset of 0 ends the list. Returns ok(nullopt) when
/// the list ends without `id`. Errors: kParse when a next offset points below 0x100 or beyond
/// the image, or revisits a header (a loop), naming the offset. Precondition: the image is
/// larger than 0x100 bytes (callers handle 64/256-byte images first).
Result<std::optional<uint16_t>> find_extended_capability(const std::vector<uint8_t>& config, uint16_t id);

/// What a config image says about ACS: kNeedsRoot (< 256 bytes: the unprivileged 64-byte
/// read), kNoExtendedSpace (256 bytes: conventional config space only), kNoCapability, kRead
/// with the ACS Control register (u16 at capability + 6), or kUnreadable with the parse error
/// in `detail`.
struct AcsLookup {
  AcsStatus status = AcsStatus::kUnreadable;
  uint16_t control = 0;
  uint16_t offset = 0;  ///< Capability offset when found.
  std::string detail;
};
AcsLookup acs_from_config(const std::vector<uint8_t>& config);

/// Reads bus/pci/devices/<bdf>/config (at most 4096 bytes) through `fs` and looks up ACS.
/// A read error gives kUnreadable with the error text in `detail` (kPermission included).
AcsLookup read_acs(const FsRoot& fs, const std::string& bdf);

}  // namespace fabdiag
