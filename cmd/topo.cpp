// `fabdiag topo`: reads the topology from sysfs (probes/topo/topology.h), adds NVLink from NVML
// (probes/topo/nvml_loader.h, probes/topo/nvlink_topology.h), rails (probes/topo/rails.h) and, with
// --against, the drift from a saved result (probes/topo/topology_drift.h); puts it in the envelope
// (probes/topo/topology_json.h) and draws the nvidia-smi-like view (cmd/topo_document.h).
#include <chrono>
#include <memory>

#include "cmd/commands.h"
#include "cmd/input.h"
#include "cmd/topo_document.h"
#include "core/environment.h"
#include "core/exit_codes.h"
#include "probes/topo/nvlink_topology.h"
#include "probes/topo/nvml_loader.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology.h"
#include "probes/topo/topology_drift.h"
#include "probes/topo/topology_json.h"
#include "rules/pcie_link_rules.h"

namespace fabdiag::cmd {

namespace {

// The baseline's data member. Errors (exit 2): missing or unreadable file, not JSON, not a
// fabdiag.topo/1 result.
Result<nlohmann::json> load_baseline(const std::string& file) {
  auto text = read_input(file);
  if (!text) return text.error();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorCode::kParse, std::string("not JSON: ") + e.what() + " (save a baseline with `fabdiag topo --format json -o FILE`)", file);
  }
  auto env = envelope_from_json(j);
  if (!env) return env.error().with_context("reading the --against baseline");
  if (env->schema != kTopoSchema)
    return make_error(ErrorCode::kParse,
                      "is a " + env->schema + " result, not " + kTopoSchema +
                          " (save a baseline with `fabdiag topo --format json -o FILE`)",
                      file);
  return env->data;
}

}  // namespace

int run_topo(const GlobalOptions& g, const TopoOptions& o) {
  ImportOutput out;
  if (auto rc = topo_output(g, o, out)) return *rc;
  return emit(g, out.env, out.doc);
}

std::optional<int> topo_output(const GlobalOptions& g, const TopoOptions& o, ImportOutput& out) {
  auto started = std::chrono::steady_clock::now();
  auto fs = make_fs_root(g);
  if (!fs) {
    print_error(fs.error().to_string() +
                ": --sysfs-root and --procfs-root must name a directory (for example /sys, or a "
                "fixture such as tests/fixtures/dgx8)");
    return kExitUsage;
  }
  // Running setuid/setgid, $FABDIAG_NVML_LIB is ignored and --nvml-lib refused.
  auto chosen = choose_nvml_library(o.nvml_lib, process_environment());
  if (!chosen) {
    print_error(chosen.error().to_string());
    return kExitUsage;
  }
  std::optional<nlohmann::json> baseline;
  if (!o.against.empty()) {
    auto b = load_baseline(o.against);
    if (!b) return fail_input(b.error());
    baseline = std::move(*b);
  }

  TopologyReport report = discover_topology(*fs, stderr_progress(g));
  judge_topology_pcie_links(report);

  // NVML: --nvml-lib, else $FABDIAG_NVML_LIB, else the driver's library on a live node. A
  // fixture or capture is not this machine, so its GPUs are not looked up in this machine's
  // NVML unless asked.
  std::string nvml_lib = *chosen;
  bool explicit_lib = !nvml_lib.empty();
  bool live = is_live_sysfs(*fs);  // NVML describes this machine only
  size_t gpus = 0;
  for (const auto& d : report.devices) gpus += d.kind == TopoKind::kGpu;
  std::unique_ptr<GpuInventorySource> source;
  if (explicit_lib || live) {
    if (!explicit_lib) nvml_lib = kDefaultNvmlLib;
    stderr_progress(g)("reading GPUs and NVLinks from NVML (" + nvml_lib + ")");
    source = std::make_unique<NvmlGpuInventory>(nvml_lib);
  } else {
    source = std::make_unique<NoGpuInventory>(
        "NVML not read: --sysfs-root " + g.sysfs_root + " is a capture, not this machine; --nvml-lib PATH forces it");
  }
  apply_gpu_inventory(report, source->read(), explicit_lib || (live && gpus > 0));

  Rails rails = compute_rails(report);
  auto findings = judge_nvlinks(report);
  auto rail_findings = judge_rails(rails, report, "fabdiag topo matrix (sysfs PCIe paths)");
  findings.insert(findings.end(), rail_findings.begin(), rail_findings.end());
  Envelope env = topo_envelope(report, rails, findings);
  env.params = {{"sysfs_root", g.sysfs_root}, {"nvml_lib", nvml_lib}, {"against", o.against}};

  std::optional<TopologyDrift> drift;
  if (baseline) {
    auto d = diff_topology(*baseline, env.data, o.against);
    if (!d) return fail_input(d.error());
    drift = std::move(*d);
    env.data["drift"] = drift_to_json(*drift, o.against);
    env.findings.insert(env.findings.end(), drift->findings.begin(), drift->findings.end());
  }
  finish_envelope(env, started);

  TopoView view;
  view.empty_note = report.gaps.empty()
                        ? "No GPU and no NIC found under " + fs->sys_path("bus/pci/devices") + ": the matrix is empty."
                        : "No GPU and no NIC could be read under " + fs->sys_path("bus/pci/devices") +
                              " (see NOT READ below): the matrix is empty.";
  if (drift) {
    view.drift = &*drift;
    view.drift_baseline = o.against;
  }
  out.doc = topo_document(report, rails, view);
  out.env = std::move(env);
  return std::nullopt;
}

}  // namespace fabdiag::cmd
