// libFuzzer target: the topology and host-facts readers over a sysfs/procfs tree, as
// `fabdiag topo --sysfs-root DIR` and `fabdiag check --sysfs-root DIR --procfs-root DIR2` read
// it: the input is "path:value" lines (ScratchTree, tests/fuzz/fuzz_support.h) made into a
// tree; discover_topology() (PCI devices, attributes, PCIe paths), the PCIe link judgement,
// rails and the topo envelope without NVML (a fixture is not this machine); read_host_facts()
// and run_checks().
#include <nlohmann/json.hpp>

#include "collect/check_sysfs.h"
#include "probes/topo/gpu_inventory.h"
#include "probes/topo/nvlink_topology.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology.h"
#include "probes/topo/topology_json.h"
#include "report/render.h"
#include "rules/check_run.h"
#include "rules/pcie_link_rules.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  static fuzz::ScratchTree tree;
  tree.build(fuzz::as_text(data, size));
  FsRoot fs = tree.fs();

  TopologyReport report = discover_topology(fs);
  judge_topology_pcie_links(report);
  NoGpuInventory no_nvml("fuzz: no NVML");
  apply_gpu_inventory(report, no_nvml.read(), false);
  Rails rails = compute_rails(report);
  auto findings = judge_nvlinks(report);
  auto rail_findings = judge_rails(rails, report, "fuzz");
  findings.insert(findings.end(), rail_findings.begin(), rail_findings.end());
  if (render_json(topo_envelope(report, rails, findings)).empty()) __builtin_trap();

  HostFacts facts = read_host_facts(fs);
  CheckReport checks = run_checks(facts, CheckRunOptions{});
  fuzz::render(nlohmann::json{{"facts", facts}, {"checks", checks.checks}, {"findings", checks.findings}});
  return 0;
}
