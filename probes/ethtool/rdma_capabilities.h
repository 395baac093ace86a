// Capabilities of the counters path on this host: ethtool netlink (the link facts, standard
// statistics and module EEPROM of probes/ethtool/ethtool_link.h) and libibverbs (RDMA devices). Listed
// by `fabdiag doctor`; vendor headers stay in the .cpp (libnl) or are not needed at all
// (libibverbs is loaded with dlopen).
#pragma once

#include "core/capability.h"

namespace fabdiag {

/// "ethtool_netlink": resolves the generic-netlink family "ethtool" with libnl-genl
/// (CTRL_CMD_GETFAMILY). compiled = built with libnl (FABDIAG_HAVE_LIBNL); loaded = the kernel
/// knows the family (Linux >= 5.6), version = the family version, detail = its id.
/// Without libnl: compiled = false, why_not says how to build it in. Opens one netlink socket;
/// unprivileged. When it is not loaded, `fabdiag counters` reads link facts and module EEPROM
/// through the SIOCETHTOOL ioctl (no lanes, down reason or netlink statistics).
Capability probe_ethtool_netlink_capability();

/// "ibverbs": dlopen("libibverbs.so.1") and ibv_get_device_list(). loaded = the library answered;
/// detail = the RDMA device names, or "no RDMA devices" when the list is empty or NULL with
/// errno ENOSYS (38), which is how rdma-core reports a host without RDMA devices.
/// why_not names the missing library or the errno. Needs no headers (compiled is always true).
Capability probe_ibverbs_capability();

}  // namespace fabdiag
