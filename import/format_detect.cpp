#include "import/format_detect.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "core/text_encoding.h"
#include "import/common.h"
#include "import/ethtool_fec.h"
#include "import/host_prefix.h"
#include "import/ibdev2netdev.h"
#include "import/ibnetdiscover.h"
#include "import/ibnodes.h"
#include "import/ibportstate.h"
#include "import/imb.h"
#include "import/lldpctl.h"
#include "import/mpigraph.h"
#include "import/nccl_ras_json.h"
#include "import/nccl_ras_monitor.h"
#include "import/nvsmi_dmon.h"
#include "import/nvsmi_query.h"
#include "import/nvue_interface.h"
#include "import/osu.h"
#include "import/rdma_link.h"
#include "import/show_gids.h"
#include "import/sonic_intf_counters.h"
#include "import/syslog.h"
#include "import/sysfs_dump_lines.h"
#include "probes/topo/pci.h"

namespace fabdiag {
namespace {

constexpr size_t kHeadLines = 256;

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

bool starts_with_any(std::string_view t, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (starts_with(t, p)) return true;
  return false;
}

// "17:00.0 Ethernet controller: ..." or "0000:17:00.0 ...": the header of an lspci function.
bool looks_like_lspci_header(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  auto sp = line.find(' ');
  if (sp == std::string_view::npos || line.find(": ", sp) == std::string_view::npos) return false;
  std::string tok(line.substr(0, sp));
  return parse_pci_address(tok).has_value() || parse_pci_address("0000:" + tok).has_value();
}

// nccl-tests' column header ("#  size  count  type  redop  root  time  algbw  busbw ...") or
// its "# nThread 1 nGpus 1 ..." preamble.
bool is_nccl_tests_line(std::string_view t) {
  // The JSON nccl-tests writes (-J file, PR #318's stdout line), and 2.17+'s version line.
  if (!t.empty() && t[0] == '{')
    return has(t, "\"nccl-tests structured output\"") ||
           (starts_with(t, "{\"version\":") && has(t, "\"nccl_version\":"));
  if (starts_with(t, "# nccl-tests version ")) return true;
  size_t body = t.find_first_not_of("# \t");
  if (body == std::string_view::npos) return false;
  // The summary under every table ("# Out of bounds values : 0 OK", "# Avg bus bandwidth : 18.9");
  // nccl-tests before 2020 printed it, the preamble and the header without the '#' (and a
  // Markdown paste loses the '#' of each line).
  std::string_view b = t.substr(body);
  if (starts_with(b, "Out of bounds values") || starts_with(b, "Avg bus bandwidth")) return true;
  auto words = split_ws(std::string(b));
  if (words[0] == "nThread") return t[0] == '#' || (words.size() > 2 && words[2] == "nGpus");
  if (words[0] != "size") return false;
  for (const char* n : {"count", "type", "time", "algbw", "busbw"})
    if (std::find(words.begin(), words.end(), n) == words.end()) return false;
  return true;
}

// "link mlx5_0/1 ..." (rdma statistic show, text forms).
bool is_rdma_link_record(std::string_view t) {
  auto words = split_ws(std::string(t));
  if (words.size() < 2 || words[0] != "link") return false;
  auto slash = words[1].find('/');
  return slash != std::string::npos && slash > 0 && parse_u64(words[1].substr(slash + 1)).has_value();
}

// "Link 3: 25 GB/s", "Link 3: <inactive>" (nvidia-smi nvlink -s), "Link 0: Replay Errors: 0"
// (nvidia-smi nvlink -e) and NVML's sentence for a GPU whose links are all down.
bool is_nvsmi_nvlink_line(std::string_view t) {
  if (starts_with(t, "NVML: Unable to retrieve NVLink information")) return true;
  if (!starts_with(t, "Link ")) return false;
  auto colon = t.find(": ");
  if (colon == std::string_view::npos || !parse_u64(t.substr(5, colon - 5))) return false;
  std::string_view v = t.substr(colon + 2);
  return ends_with(v, " GB/s") || v == "<inactive>" || has(v, "Errors: ");
}

// dcgmi's table titles and legend lines.
bool is_dcgmi_marker(std::string_view t) {
  if (starts_with(t, "Key: Up=U, Down=D") || t == "Successfully ran diagnostic for group.") return true;
  if (t.empty() || t[0] != '|') return false;
  auto words = split_ws(std::string(t));
  auto is = [&](std::initializer_list<const char*> w) {
    std::vector<std::string> want;
    for (const char* x : w) want.emplace_back(x);
    return words == want;
  };
  return is({"|", "NvLink", "Link", "Status", "|"}) || is({"|", "Diagnostic", "|", "Result", "|"});
}

// A category row of a `dcgmi diag` table, which a paste cut above the header still has:
// "+-----  Integration  -------+------------------------------------------------+" or
// "|-----  Metadata  ----------+------------------------------------------------|".
bool is_dcgmi_diag_category(std::string_view t) {
  if (t.size() < 20 || (t[0] != '+' && t[0] != '|') || (t.back() != '+' && t.back() != '|')) return false;
  if (!starts_with(t.substr(1), "-----  ")) return false;
  size_t name = 8, end = t.find("  -", name);
  if (end == std::string_view::npos || end == name) return false;
  for (char c : t.substr(name, end - name))
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != ' ') return false;
  size_t plus = t.find('+', end);
  return plus != std::string_view::npos && t.find_first_not_of('-', end + 2) == plus &&
         t.find_first_not_of('-', plus + 1) == t.size() - 1;
}

// "sudo ethtool -S eth8 | grep lsc_int", "# ethtool --statistics eth1": the command of a paste.
bool is_ethtool_s_command(std::string_view t) {
  auto words = split_ws(std::string(t));
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if ((words[i] == "ethtool" || ends_with(words[i], "/ethtool")) &&
        (words[i + 1] == "-S" || words[i + 1] == "--statistics"))
      return i + 2 < words.size() && words[i + 2][0] != '-';
  return false;
}

ToolText structured_marker(std::string_view t) {
  if (has(t, "==(") && has(t, ")==>")) return ToolText::kIblinkinfo;
  if (starts_with_any(t, {"Port Rx ", "Port Tx "}) && has(t, " PFC0")) return ToolText::kSonicPfc;
  if (starts_with(t, "QUEUE") && has(t, "STORM DETECTED/RESTORED")) return ToolText::kSonicPfcwd;
  if (starts_with(t, "#bytes") && has(t, "#iterations")) return ToolText::kPerftest;
  if (ends_with(t, " BW Test") || ends_with(t, " Latency Test")) return ToolText::kPerftest;
  if (is_osu_title(t) || is_osu_header(t)) return ToolText::kOsu;
  if (is_imb_marker(t) || (starts_with(t, "#bytes") && has(t, "#repetitions"))) return ToolText::kImb;
  if (is_mpigraph_marker(t)) return ToolText::kMpiGraph;
  if (is_nvsmi_dmon_header(t)) return ToolText::kNvsmiDmon;
  if (is_sonic_intf_counters_marker(t)) return ToolText::kSonicIntfCounters;
  if (is_nvue_interface_marker(t)) return ToolText::kNvueInterface;
  if (t == "LLDP neighbors:" || starts_with_any(t, {"\"lldp\": {", "{\"lldp\":"}) ||
      (starts_with(t, "Interface:") && has(t, ", via: ")) || is_lldpctl_keyvalue_line(t))
    return ToolText::kLldpctl;
  if (is_ibdev2netdev_line(t)) return ToolText::kIbdev2netdev;
  if (is_ibnetdiscover_line(t)) return ToolText::kIbnetdiscover;
  if (is_show_gids_marker(t)) return ToolText::kShowGids;
  if (is_ibportstate_marker(t)) return ToolText::kIbportstate;
  if (parse_ibnodes_line(t)) return ToolText::kIbnodes;
  if (starts_with_any(t, {"FEC parameters for ", "Configured FEC encodings:", "Active FEC encoding:",
                          "Supported/Configured FEC encodings:"}) ||
      is_ethtool_fec_json_line(t))
    return ToolText::kEthtoolFec;
  if (t == "NIC statistics:" || starts_with(t, "Standard stats for ") || is_ethtool_s_command(t))
    return ToolText::kEthtoolS;
  if (prompt_sysfs_dir(t) || (dump_title_file(t) && has(t, "/sys/class/"))) return ToolText::kEthtoolS;
  if ((has(t, " mW / ") && has(t, "dBm")) || starts_with_any(t, {"Module temperature", "Laser output power"}))
    return ToolText::kEthtoolM;
  if (t[0] == '#' && has(t, "counters:") && has(t, "Lid")) return ToolText::kPerfquery;
  if (starts_with_any(t, {"Errors for ", "## Summary:"})) return ToolText::kIbqueryerrors;
  if (starts_with(t, "GUID 0x") && has(t, " port ") && has(t, ": [") && has(t, " == ")) return ToolText::kIbqueryerrors;
  if (is_rdma_link_show_line(t)) return ToolText::kRdmaLink;
  if (is_rdma_link_record(t)) return ToolText::kRdmaStatistic;
  if (starts_with_any(t, {"hca_id:", "node_guid:", "sys_image_guid:", "phys_port_cnt:", "port_lid:", "active_mtu:"}))
    return ToolText::kIbvDevinfo;
  if (starts_with_any(t, {"CA '", "CA type:", "Node GUID:", "System image GUID:", "Port GUID:",
                          "Capability mask:", "Physical state:"}))
    return ToolText::kIbstat;
  if ((starts_with(t, "Infiniband device '") && ends_with(t, "status:")) ||
      starts_with_any(t, {"default gid:", "phys state:"}))
    return ToolText::kIbstatus;
  if (starts_with_any(t, {"LnkSta:", "LnkCap:", "ACSCtl:"})) return ToolText::kLspci;
  if (is_nccl_tests_line(t)) return ToolText::kNcclTests;
  if (starts_with(t, "GPU0") && has(t, "Affinity")) return ToolText::kNvsmiTopo;
  if (starts_with(t, "\"coll_perf\"") || starts_with(t, "\"dump_stats\"") || starts_with(t, "{\"coll_perf\"") ||
      (starts_with(t, "nccl_") && has(t, "{") && has(t, "comm_name=")))
    return ToolText::kNcclInspector;
  if (starts_with(t, "Group") && has(t, "Comms") && has(t, "Status") && has(t, "Errors")) return ToolText::kNcclRas;
  if (detail::is_nccl_ras_json_line(t) || detail::is_nccl_ras_monitor_line(t)) return ToolText::kNcclRas;
  if (is_nvsmi_nvlink_line(t)) return ToolText::kNvsmiNvlink;
  if (is_nvsmi_query_marker(t)) return ToolText::kNvsmiQuery;
  if (is_dcgmi_marker(t) || is_dcgmi_diag_category(t)) return ToolText::kDcgmi;
  return ToolText::kUnknown;
}

// "name: 123" with a name that holds no blank (or a "[0]: rx_..." queue prefix): the shape of
// `ethtool -S` lines; ibstat's "Base lid: 12" and "Node GUID: 0x..." are not.
bool is_counter_shaped(const std::string& t) {
  size_t colon = t.rfind(':');
  if (colon == std::string::npos || colon == 0 || !parse_u64(t.substr(colon + 1))) return false;
  std::string name = trim(t.substr(0, colon));
  return name[0] == '[' || name.find_first_of(" \t") == std::string::npos;
}

// "node01,node02  49.36  # note" (a hand-made list of 2-node results, import/pairs_list.h): two
// host names joined by a comma, a number, an optional GB/s or Gb/s unit and a comment.
bool is_pair_list_shaped(const std::string& t) {
  std::string body = trim(t.substr(0, t.find('#')));
  auto w = split_ws(body);
  if (w.size() < 2 || w.size() > 3) return false;
  size_t comma = w[0].find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == w[0].size()) return false;
  auto host_word = [](std::string_view h) {
    return std::isalnum(static_cast<unsigned char>(h[0])) &&
           std::any_of(h.begin(), h.end(), [](unsigned char c) { return std::isalpha(c); }) &&
           std::all_of(h.begin(), h.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_'; });
  };
  std::string_view a(w[0].data(), comma), b(w[0].data() + comma + 1, w[0].size() - comma - 1);
  if (!host_word(a) || !host_word(b) || a == b || !parse_double(w[1])) return false;
  return w.size() == 2 || w[2] == "GB/s" || w[2] == "Gb/s" || w[2] == "GBps" || w[2] == "Gbps";
}

}  // namespace

const char* describe(ToolText tool) {
  switch (tool) {
    case ToolText::kUnknown: return "text of no tool fabdiag reads";
    case ToolText::kEthtoolS: return "`ethtool -S` output";
    case ToolText::kEthtoolM: return "`ethtool -m` output";
    case ToolText::kEthtoolFec: return "`ethtool --show-fec` output";
    case ToolText::kPerfquery: return "perfquery output";
    case ToolText::kIbqueryerrors: return "ibqueryerrors output";
    case ToolText::kRdmaStatistic: return "`rdma statistic show` output";
    case ToolText::kSyslog: return "syslog/journal/dmesg lines";
    case ToolText::kLspci: return "`lspci -vvv` output";
    case ToolText::kIbstat: return "ibstat output";
    case ToolText::kIbstatus: return "ibstatus output";
    case ToolText::kIbvDevinfo: return "ibv_devinfo output";
    case ToolText::kNcclLog: return "an NCCL log";
    case ToolText::kNcclTests: return "nccl-tests output";
    case ToolText::kNvsmiTopo: return "`nvidia-smi topo -m` output";
    case ToolText::kPytorchWatchdog: return "a PyTorch NCCL watchdog log";
    case ToolText::kNcclRas: return "an NCCL RAS report";
    case ToolText::kNcclInspector: return "NCCL Inspector output";
    case ToolText::kNvsmiNvlink: return "`nvidia-smi nvlink` output";
    case ToolText::kNvsmiQuery: return "`nvidia-smi -q` output";
    case ToolText::kDcgmi: return "dcgmi output";
    case ToolText::kNvrmXid: return "kernel log lines with NVRM Xid reports";
    case ToolText::kIblinkinfo: return "iblinkinfo output";
    case ToolText::kSonicPfc: return "SONiC `show pfc counters` output";
    case ToolText::kSonicPfcwd: return "SONiC `show pfcwd stats` output";
    case ToolText::kLldpctl: return "lldpctl output";
    case ToolText::kPerftest: return "perftest output";
    case ToolText::kIbdev2netdev: return "ibdev2netdev output";
    case ToolText::kRdmaLink: return "`rdma link show` output";
    case ToolText::kIbnetdiscover: return "ibnetdiscover output";
    case ToolText::kShowGids: return "show_gids output";
    case ToolText::kIbportstate: return "ibportstate output";
    case ToolText::kIbnodes: return "ibhosts/ibswitches/ibnodes output";
    case ToolText::kOsu: return "OSU micro-benchmarks output";
    case ToolText::kImb: return "Intel MPI Benchmarks output";
    case ToolText::kMpiGraph: return "mpiGraph output";
    case ToolText::kNvsmiDmon: return "`nvidia-smi dmon` output";
    case ToolText::kSonicIntfCounters: return "SONiC `show interfaces counters` output";
    case ToolText::kNvueInterface: return "Cumulus NVUE `nv show interface` output";
    case ToolText::kPairsList: return "a list of pairs (\"hostA,hostB  GB/s\")";
  }
  return "unknown";
}

bool is_nvrm_xid_line(std::string_view line) {
  auto at = line.find("NVRM: Xid (");
  return at != std::string_view::npos && line.find("): ", at) != std::string_view::npos;
}

bool is_nvrm_gpu_lost_line(std::string_view line) {
  auto at = line.find("NVRM: ");
  return at != std::string_view::npos && line.find("fallen off the bus", at) != std::string_view::npos &&
         !is_nvrm_xid_line(line);
}

std::string quote_line(std::string_view line) {
  std::string t = trim(line);
  std::string out;
  for (char c : t.substr(0, 80)) {  // printable ASCII only: the line may be binary
    auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7f) ? '?' : c;
  }
  return "\"" + out + (t.size() > 80 ? "...\"" : "\"");
}

ToolText marker_of_line(std::string_view raw) {
  std::string t = trim(strip_launcher_tags(raw));
  if (t.empty() || starts_with(t, "###")) return ToolText::kUnknown;
  ToolText s = structured_marker(t);
  if (s != ToolText::kUnknown) return s;
  // pdsh / clush output: "node01: #  size  count  type ..." (the nccl-tests reader splits the hosts).
  if (HostPrefixed p = split_host_prefix(t); !p.host.empty() && is_nccl_tests_line(trim(p.text)))
    return ToolText::kNcclTests;
  if (is_nvrm_xid_line(t) || is_nvrm_gpu_lost_line(t)) return ToolText::kNvrmXid;
  if (looks_like_lspci_header(raw)) return ToolText::kLspci;
  if (has(t, "Watchdog caught collective operation timeout") ||
      (has(t, "ProcessGroupNCCL") && (has(t, "last enqueued NCCL work") || has(t, "last enqueued work:"))))
    return ToolText::kPytorchWatchdog;
  if (has(t, "NCCL WARN") || has(t, "NCCL INFO")) return ToolText::kNcclLog;
  return ToolText::kUnknown;
}

ToolEvidence detect_tool(const std::vector<std::string>& head, size_t first_line) {
  ToolEvidence log_marker, first;
  size_t lines = 0, timestamped = 0, counters = 0, sysfs = 0, nccl = 0, pairs = 0;
  bool binary = false;
  for (size_t i = 0; i < head.size(); ++i) {
    const std::string& raw = head[i];
    binary = binary || raw.find('\0') != std::string::npos;
    std::string t = trim(raw);
    if (t.empty() || starts_with(t, "###")) continue;
    ++lines;
    if (first.line == 0) first = {ToolText::kUnknown, first_line + i, quote_line(t), false};
    if (is_nvrm_xid_line(t) || is_nvrm_gpu_lost_line(t)) return {ToolText::kNvrmXid, first_line + i, quote_line(t), binary};
    ToolText m = marker_of_line(raw);
    if (m == ToolText::kNcclLog) {
      ++nccl;
      if (log_marker.line == 0) log_marker = {m, first_line + i, quote_line(t), false};
    }
    if (log_line_time_s(t)) {  // a log line: it may be a PyTorch or NCCL line, but other tools' words are quotes
      ++timestamped;
      if (m == ToolText::kPytorchWatchdog || m == ToolText::kNcclRas) return {m, first_line + i, quote_line(t), binary};
      continue;
    }
    if (m != ToolText::kUnknown && m != ToolText::kNcclLog) return {m, first_line + i, quote_line(t), binary};
    if (looks_like_sysfs_lines(t)) ++sysfs;
    else if (is_counter_shaped(t)) ++counters;
    else if (t[0] != '#' && is_pair_list_shaped(t)) ++pairs;
  }
  ToolEvidence out = first;
  out.binary = binary;
  if (lines == 0) return out;
  if (timestamped * 2 > lines && nccl * 2 <= lines) out.tool = ToolText::kSyslog;
  else if (log_marker.line) out = {log_marker.tool, log_marker.line, log_marker.text, binary};
  else if ((counters + sysfs) * 2 > lines) out.tool = ToolText::kEthtoolS;
  else if (pairs >= 2 && pairs * 2 > lines) out.tool = ToolText::kPairsList;  // most lines "a,b  GB/s"
  return out;
}

ToolEvidence detect_tool_in_text(std::string_view text) {
  std::vector<std::string> head;
  size_t pos = starts_with(text, kUtf8Bom) ? kUtf8Bom.size() : 0;
  while (pos < text.size() && head.size() < kHeadLines) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    head.emplace_back(l);
    pos = end + 1;
  }
  return detect_tool(head);
}

Status check_named_tool(ToolText named, const std::vector<std::string>& head, const std::string& source,
                        size_t first_line) {
  if (named == ToolText::kSyslog || named == ToolText::kNcclLog || named == ToolText::kNcclTests ||
      named == ToolText::kPytorchWatchdog || named == ToolText::kNvrmXid)
    return Ok{};
  for (size_t i = 0; i < head.size(); ++i) {
    std::string t = trim(head[i]);
    if (t.empty() || log_line_time_s(t)) continue;
    ToolText m = marker_of_line(head[i]);
    if (m == ToolText::kUnknown || m == ToolText::kNcclLog || m == named) continue;
    return make_error(ErrorCode::kParse,
                      std::string("expected ") + describe(named) + ", but this is " + describe(m) + ": " +
                          quote_line(t),
                      line_source(source, first_line + i));
  }
  return Ok{};
}

}  // namespace fabdiag
