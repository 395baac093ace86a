// libFuzzer target: the ethtool generic-netlink replies, as the link source decodes what the
// kernel answers (probes/ethtool/ethtool_netlink_messages.h: every reply decoder over the same
// attribute area), the NLMSG_ERROR extended ack the libnl transport reads
// (netlink_extack_message()), and the attribute walk itself down every nest.
#include <vector>

#include "probes/ethtool/ethtool_netlink_messages.h"
#include "probes/ethtool/netlink_attr.h"
#include "probes/module/module_eeprom.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace fabdiag;

// Every attribute, nested ones included, read as each payload type the decoders use.
void walk(const uint8_t* data, size_t len, int depth) {
  auto attrs = parse_nlattrs(data, len, "fuzz");
  if (!attrs || depth > 8) return;
  for (const auto& a : *attrs) {
    (void)nlattr_u8(a);
    (void)nlattr_u32(a);
    (void)nlattr_u64(a);
    (void)nlattr_string(a);
    (void)nlattr_u64_array(a);
    walk(a.data, a.len, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> attrs(data, data + size);
  walk(attrs.data(), attrs.size(), 0);

  LinkFacts link;
  std::vector<NetlinkStat> stats;
  (void)decode_linkmodes_reply(attrs, link);
  (void)decode_linkstate_reply(attrs, link, stats);
  (void)decode_pause_reply(attrs, link, stats);
  (void)decode_fec_reply(attrs, link, stats);
  (void)decode_stats_reply(attrs, stats);
  if (link.ext_state) {
    (void)link_ext_state_name(*link.ext_state);
    if (link.ext_substate) (void)link_ext_substate_name(*link.ext_state, *link.ext_substate);
  }
  for (const auto& s : stats)
    if (s.name.empty()) __builtin_trap();  // every statistic is named
  nlohmann::json j = link;
  fuzz::render(j);

  // A MODULE_EEPROM_GET reply's DATA goes to the EEPROM decoder as page 00h (lower half).
  if (auto eeprom = decode_module_eeprom_reply(attrs)) {
    ModuleMemory mem;
    mem.store(kModuleI2cA0, 0, 0, 0, *eeprom);
    (void)decode_module_eeprom(mem);
  }

  // NLMSG_ERROR: the payload with each flag combination the kernel sends.
  for (uint16_t flags : {uint16_t{0}, kNlmFlagAckTlvs, uint16_t(kNlmFlagAckTlvs | kNlmFlagCapped)})
    (void)netlink_extack_message(attrs.data(), attrs.size(), flags);
  return 0;
}
