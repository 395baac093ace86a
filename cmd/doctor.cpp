// fabdiag doctor: what this binary can do on this host. Each capability is probed by its
// adapter (probes/ and perf/); nothing here loads a library itself.
#include <nlohmann/json.hpp>

#include "cmd/commands.h"
#include "core/build_config.h"
#include "perf/capabilities.h"
#include "perf/comm.h"
#include "probes/topo/nvml_loader.h"
#include "probes/ethtool/rdma_capabilities.h"

namespace fabdiag::cmd {

namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

// Which commands need which capability, so that "why not" ends in what it costs.
const char* used_by(const std::string& name) {
  if (name == "mpi") return "bench, pairwise, triage";
  if (name == "nccl" || name == "cuda_runtime") return "bench --backend nccl -g N";
  if (name == "nvml") return "topo (NVLink NV#), check";
  if (name == "ibverbs") return "RDMA device listing (sysfs is used otherwise)";
  if (name == "ethtool_netlink") return "counters: link modes, FEC, pause, module optics (ioctl otherwise)";
  return "";
}

}  // namespace

int run_doctor(const GlobalOptions& g, const DoctorOptions&) {
  auto started = std::chrono::steady_clock::now();
  Envelope env = make_envelope("fabdiag.doctor/1");
  Capability cuda = perf::probe_cuda_runtime_capability();
  std::vector<Capability> caps = {
      perf::probe_mpi_capability(),  perf::with_nccl_backend_verdict(perf::probe_nccl_capability(), cuda),
      cuda,                          probe_nvml_capability(),
      probe_ibverbs_capability(),    probe_ethtool_netlink_capability(),
  };
  nlohmann::json list = nlohmann::json::array();
  Document doc;
  doc.title = "fabdiag doctor: capabilities of this binary on " + env.hosts[0];
  Section s;
  Table t;
  t.columns = {"CAPABILITY", "COMPILED", "LOADED", "VERSION", "USED BY"};
  for (const auto& c : caps) {
    list.push_back(c);
    list.back()["used_by"] = used_by(c.name);
    t.rows.push_back({c.name, yes_no(c.compiled), yes_no(c.loaded), c.version.empty() ? "-" : c.version, used_by(c.name)});
  }
  s.tables.push_back(t);
  for (const auto& c : caps) {
    if (!c.detail.empty()) s.lines.push_back("  " + c.name + ": " + c.detail);
    if (!c.why_not.empty()) s.lines.push_back("  " + c.name + " not usable: " + c.why_not);
  }
  doc.sections.push_back(s);
  env.data["capabilities"] = list;
  env.data["build"] = {{"libnl", FABDIAG_HAVE_LIBNL == 1},
                       {"ibverbs_headers", FABDIAG_HAVE_IBVERBS == 1},
                       {"yaml_cpp", FABDIAG_HAVE_YAMLCPP == 1},
                       {"nccl_cuda_headers", FABDIAG_HAVE_NCCL_HEADERS == 1}};
  finish_envelope(env, started);
  // A missing optional capability is information, not a problem: doctor exits 0.
  return emit(g, env, doc);
}

}  // namespace fabdiag::cmd
