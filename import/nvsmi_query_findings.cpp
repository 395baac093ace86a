// The findings and the envelope data of `nvidia-smi -q` (import/nvsmi_query.h); thresholds and
// their sources in docs/gpu_readers.md#nvidia-smi--q.
#include <algorithm>

#include "core/text.h"
#include "import/common.h"
#include "import/nvsmi_query.h"

namespace fabdiag {

namespace {

std::string src(const NvsmiQueryImport& imp, size_t line) { return line_source(imp.source, line); }

bool printed(const NvsmiField& f) { return !f.text.empty() && f.text != "N/A" && f.text != "[N/A]"; }

Finding finding(const NvsmiQueryGpu& g, Severity sev, const char* code) {
  Finding f;
  f.severity = sev;
  f.layer = Layer::kPhysical;
  f.code = code;
  f.subject = g.subject();
  return f;
}

Evidence number_ev(const NvsmiQueryImport& imp, const std::string& metric, const NvsmiField& f, const char* unit) {
  auto n = f.number();
  Evidence e = Evidence::number(metric, n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt, unit,
                                src(imp, f.line));
  if (!n) e.value_text = f.text;
  return e;
}

// A GPU that is doing work: P0 and the Idle reason not active. Otherwise a low PCIe
// generation is the driver's power saving.
bool busy(const NvsmiQueryGpu& g) {
  auto idle = g.clock_reasons.find("Idle");
  return g.performance_state.text == "P0" && idle != g.clock_reasons.end() && idle->second.text == "Not Active";
}

void pcie_findings(const NvsmiQueryImport& imp, const NvsmiQueryGpu& g, std::vector<Finding>& out) {
  auto wmax = g.width_max.number(), wcur = g.width_current.number();
  if (wmax && wcur && *wcur < *wmax) {
    Finding f = finding(g, Severity::kError, "pcie_width_downgraded");
    f.message = g.label() + ": PCIe link trained at x" + std::to_string(*wcur) + " of its x" + std::to_string(*wmax) +
                ": only " + std::to_string(*wcur) + " of " + std::to_string(*wmax) +
                " lanes carry host and GPUDirect traffic (the width does not drop for power saving)";
    f.evidence.push_back(number_ev(imp, "Link Width Current", g.width_current, "lanes")
                             .expect(static_cast<double>(*wmax), "Link Width Max " + g.width_max.text));
    f.action = "Reseat the GPU (or its riser / cable to the PCIe switch), check the slot's bifurcation in the BIOS and "
               "dmesg for AER lines naming " + g.pci_bdf + "; replace the riser or move the GPU when it stays narrow.";
    out.push_back(std::move(f));
  }
  auto gmax = g.gen_max.number(), gcur = g.gen_current.number();
  if (gmax && gcur && *gcur < *gmax) {
    bool working = busy(g);
    Finding f = finding(g, working ? Severity::kWarn : Severity::kInfo,
                        working ? "pcie_speed_downgraded" : "pcie_speed_low_at_idle");
    f.message = g.label() + ": PCIe Gen" + std::to_string(*gcur) + ", below the Gen" + std::to_string(*gmax) +
                " it can run" +
                (working ? " while the GPU is busy (P0, not idle): the link trained or fell back to a lower speed"
                         : ": GPUs lower the PCIe generation when idle to save power (performance state " +
                               (g.performance_state.text.empty() ? std::string("not printed") : g.performance_state.text) +
                               "), so this is only a fault under load; the width is the reliable sign");
    f.evidence.push_back(number_ev(imp, "PCIe Generation Current", g.gen_current, "gen")
                             .expect(static_cast<double>(*gmax), "PCIe Generation Max " + g.gen_max.text));
    if (printed(g.performance_state))
      f.evidence.push_back(Evidence::text("Performance State", g.performance_state.text, src(imp, g.performance_state.line)));
    f.action = working ? "Check the BIOS PCIe generation setting of the slot and reseat the GPU; dmesg shows the "
                         "trained speed ('limited by')."
                       : "Re-check under load (nvidia-smi -q -d PCIE while a job runs).";
    out.push_back(std::move(f));
  }
  auto dmax = g.gen_device_max.number(), hmax = g.gen_host_max.number();
  if (dmax && hmax && *hmax < *dmax) {
    Finding f = finding(g, Severity::kInfo, "pcie_gen_limited_by_host");
    f.message = g.label() + ": the GPU supports PCIe Gen" + std::to_string(*dmax) + " but the host side allows Gen" +
                std::to_string(*hmax) + ": host and GPUDirect bandwidth is that of Gen" + std::to_string(*hmax);
    f.evidence.push_back(number_ev(imp, "PCIe Generation Host Max", g.gen_host_max, "gen")
                             .expect(static_cast<double>(*dmax), "Device Max " + g.gen_device_max.text));
    f.action = "Expected in an older server; otherwise check the slot's PCIe generation in the BIOS.";
    out.push_back(std::move(f));
  }
}

void ecc_findings(const NvsmiQueryImport& imp, const NvsmiQueryGpu& g, std::vector<Finding>& out) {
  auto vol = g.uncorrectable("volatile"), agg = g.uncorrectable("aggregate");
  bool now = vol && *vol > 0;
  if (now || (agg && *agg > 0)) {
    Finding f = finding(g, now ? Severity::kError : Severity::kWarn, "gpu_ecc_uncorrectable");
    f.message = g.label() + ": " +
                (now ? std::to_string(*vol) + " uncorrectable ECC error(s) since the driver loaded (volatile)"
                     : std::to_string(*agg) + " uncorrectable ECC error(s) in the GPU's lifetime (aggregate), none since "
                                              "the driver loaded");
    for (const char* scope : {"volatile", "aggregate"}) {
      auto it = g.ecc.find(scope);
      if (it == g.ecc.end()) continue;
      for (const auto& [name, v] : it->second)
        if ((name.find("uncorrectable") != std::string::npos || name == "double_bit/total") && v.number().value_or(0))
          f.evidence.push_back(number_ev(imp, std::string(scope) + " " + name, v, "count").expect(0, "0"));
    }
    f.action = now ? "Drain the node: applications on this GPU get Xid 48/94/95; reset the GPU (nvidia-smi -r) or "
                     "reboot, then read Remapped Rows / Retired Pages; RMA when a remap fails or errors recur."
                   : "Watch the count: a rising aggregate count, a remap failure or retired pages near the limit are "
                     "RMA grounds.";
    out.push_back(std::move(f));
  }
  if (g.sram_threshold_exceeded.yes()) {
    Finding f = finding(g, Severity::kWarn, "gpu_sram_threshold_exceeded");
    f.message = g.label() + ": the SRAM ECC error count exceeded the driver's threshold";
    f.evidence.push_back(Evidence::text("SRAM Threshold Exceeded", "Yes", src(imp, g.sram_threshold_exceeded.line)).expect("No"));
    f.action = "Run DCGM diagnostics (dcgmi diag -r 3) and contact NVIDIA support with nvidia-bug-report.sh output.";
    out.push_back(std::move(f));
  }
}

void memory_repair_findings(const NvsmiQueryImport& imp, const NvsmiQueryGpu& g, std::vector<Finding>& out) {
  if (g.remap_failure.yes()) {
    Finding f = finding(g, Severity::kError, "gpu_row_remap_failure");
    f.message = g.label() + ": a row remapping failed (no spare row left in a bank): the bad memory stays in use";
    f.evidence.push_back(Evidence::text("Remapping Failure Occurred", "Yes", src(imp, g.remap_failure.line)).expect("No"));
    f.action = "Drain the node and RMA the GPU (NVIDIA's memory error management: a remapping failure is an RMA event).";
    out.push_back(std::move(f));
  }
  if (g.remap_pending.yes()) {
    Finding f = finding(g, Severity::kWarn, "gpu_row_remap_pending");
    f.message = g.label() + ": a row remapping is pending: it takes effect at the next GPU reset";
    f.evidence.push_back(Evidence::text("Remapped Rows Pending", "Yes", src(imp, g.remap_pending.line)).expect("No"));
    if (g.remap_uncorrectable.number().value_or(0))
      f.evidence.push_back(number_ev(imp, "Remapped Rows Uncorrectable Error", g.remap_uncorrectable, "rows"));
    f.action = "Drain the GPU and reset it (nvidia-smi -r) or reboot so the remap is applied.";
    out.push_back(std::move(f));
  }
  if (g.retired_pending.yes()) {
    Finding f = finding(g, Severity::kWarn, "gpu_page_retirement_pending");
    f.message = g.label() + ": a page retirement is pending: it takes effect at the next driver reload";
    f.evidence.push_back(Evidence::text("Retired Pages Pending", "Yes", src(imp, g.retired_pending.line)).expect("No"));
    if (g.retired_dbe.number().value_or(0))
      f.evidence.push_back(number_ev(imp, "Retired Pages Double Bit ECC", g.retired_dbe, "pages"));
    f.action = "Drain the GPU and reset it or reboot so the page is retired.";
    out.push_back(std::move(f));
  }
}

void clock_findings(const NvsmiQueryImport& imp, const NvsmiQueryGpu& g, std::vector<Finding>& out) {
  Finding f = finding(g, Severity::kWarn, "gpu_clocks_slowdown");
  std::vector<std::string> active;
  for (const char* reason : {"HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown", "SW Thermal Slowdown"}) {
    auto it = g.clock_reasons.find(reason);
    if (it == g.clock_reasons.end() || it->second.text != "Active") continue;
    active.push_back(reason);
    f.evidence.push_back(Evidence::text(g.clock_reasons_title + " " + reason, "Active", src(imp, it->second.line))
                             .expect("Not Active"));
  }
  if (active.empty()) return;
  if (printed(g.temp_current)) {
    Evidence e = number_ev(imp, "GPU Current Temp", g.temp_current, "C");
    if (auto slow = g.temp_slowdown.number()) e.expect(static_cast<double>(*slow), "GPU Slowdown Temp " + g.temp_slowdown.text);
    f.evidence.push_back(e);
  }
  bool thermal = std::any_of(active.begin(), active.end(), [](const std::string& r) { return r.find("Thermal") != std::string::npos; });
  bool brake = std::find(active.begin(), active.end(), "HW Power Brake Slowdown") != active.end();
  f.message = g.label() + ": clocks held down by " + join(active) +
              ": the GPU runs at a fraction of its clock and slows every collective it is in" +
              (brake ? " (power brake: the board or chassis asserted it)" : thermal ? " (temperature)" : "");
  f.action = thermal ? "Check the cooling (fans, airflow, inlet temperature) and nvidia-smi -q -d TEMPERATURE,PERFORMANCE "
                       "under load; dcgmi health flags the same as a thermal violation."
                     : "Check the power supplies and the chassis power brake signal (BMC event log); a HW slowdown "
                       "that persists with normal temperature is a board or PSU fault.";
  out.push_back(std::move(f));
}

void fabric_findings(const NvsmiQueryImport& imp, const NvsmiQueryGpu& g, std::vector<Finding>& out) {
  const std::string& st = g.fabric_state.text;
  if (printed(g.fabric_state) && st != "Not Supported") {
    bool ok_status = !printed(g.fabric_status) || g.fabric_status.text == "Success";
    if (st != "Completed" || !ok_status) {
      Finding f = finding(g, Severity::kError, "gpu_fabric_not_registered");
      f.message = g.label() + ": not registered with the NVLink fabric (Fabric " +
                  (st != "Completed" ? "State " + st : "Status " + g.fabric_status.text) +
                  "): CUDA on this GPU fails with cudaErrorSystemNotReady (802) until Fabric Manager completes";
      f.evidence.push_back(Evidence::text("Fabric State", st, src(imp, g.fabric_state.line)).expect("Completed"));
      if (printed(g.fabric_status))
        f.evidence.push_back(Evidence::text("Fabric Status", g.fabric_status.text, src(imp, g.fabric_status.line)).expect("Success"));
      f.action = "Check that nvidia-fabricmanager (NVSwitch HGX) or the IMEX / NVLink fabric services (NVL systems) run "
                 "with the driver's version: systemctl status nvidia-fabricmanager and its log.";
      out.push_back(std::move(f));
    }
  }
  Finding f = finding(g, Severity::kWarn, "gpu_fabric_degraded");
  for (const auto& [key, v] : g.fabric_health) {
    bool bad = key == "Bandwidth" ? printed(v) && v.text != "Full" : v.text == "True" || v.text == "Yes";
    if (bad) f.evidence.push_back(Evidence::text("Fabric Health " + key, v.text, src(imp, v.line)));
  }
  if (f.evidence.empty()) return;
  f.message = g.label() + ": the NVLink fabric reports this GPU's health as degraded";
  f.action = "Read the Fabric Manager log and nvidia-smi nvlink -s for links down; reset the GPU or the tray.";
  out.push_back(std::move(f));
}

void reset_findings(const NvsmiQueryImport& imp, const NvsmiQueryGpu& g, std::vector<Finding>& out) {
  if (!g.reset_required.yes() && !g.drain_and_reset.yes()) return;
  Finding f = finding(g, Severity::kError, "gpu_reset_required");
  f.message = g.label() + ": the driver asks for a GPU reset" +
              (g.drain_and_reset.yes() ? " after draining its work" : "") + " (an uncontained error occurred)";
  for (const auto* fld : {&g.reset_required, &g.drain_and_reset})
    if (fld->yes()) f.evidence.push_back(Evidence::text(fld == &g.reset_required ? "Reset Required" : "Drain and Reset Recommended",
                                                        "Yes", src(imp, fld->line)).expect("No"));
  f.action = "Drain the GPU, then nvidia-smi -r -i <index> or reboot.";
  out.push_back(std::move(f));
}

nlohmann::json num(const NvsmiField& f) {
  auto n = f.number();
  return n ? nlohmann::json(*n) : nlohmann::json(nullptr);
}

nlohmann::json txt(const NvsmiField& f) { return f.text.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.text); }

nlohmann::json txt_map(const std::map<std::string, NvsmiField>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : m) j[k] = v.text;
  return j;
}

nlohmann::json gpu_data(const NvsmiQueryGpu& g) {
  nlohmann::json ecc = {{"mode_current", txt(g.ecc_mode_current)},
                        {"mode_pending", txt(g.ecc_mode_pending)},
                        {"sram_threshold_exceeded", txt(g.sram_threshold_exceeded)}};
  for (const auto& [scope, counters] : g.ecc) {
    nlohmann::json c = nlohmann::json::object();
    for (const auto& [k, v] : counters) c[k] = num(v);
    ecc[scope] = c;
  }
  auto vol = g.uncorrectable("volatile"), agg = g.uncorrectable("aggregate");
  ecc["volatile_uncorrectable"] = vol ? nlohmann::json(*vol) : nlohmann::json(nullptr);
  ecc["aggregate_uncorrectable"] = agg ? nlohmann::json(*agg) : nlohmann::json(nullptr);
  std::vector<std::string> active;
  for (const auto& [k, v] : g.clock_reasons)
    if (v.text == "Active") active.push_back(k);
  return {{"host", g.host},
          {"bus_id", g.bus_id},
          {"pci_bdf", g.pci_bdf},
          {"gpu_index", g.index ? nlohmann::json(*g.index) : nlohmann::json(nullptr)},
          {"samples", g.samples},
          {"product_name", txt(g.product_name)},
          {"uuid", txt(g.uuid)},
          {"serial", txt(g.serial)},
          {"minor_number", num(g.minor_number)},
          {"module_id", num(g.module_id)},
          {"performance_state", txt(g.performance_state)},
          {"pcie", {{"gen_max", num(g.gen_max)}, {"gen_current", num(g.gen_current)},
                    {"gen_device_max", num(g.gen_device_max)}, {"gen_host_max", num(g.gen_host_max)},
                    {"width_max", num(g.width_max)}, {"width_current", num(g.width_current)},
                    {"replays", num(g.replays)}, {"replay_rollovers", num(g.replay_rollovers)}}},
          {"ecc", ecc},
          {"retired_pages", {{"single_bit_ecc", num(g.retired_sbe)}, {"double_bit_ecc", num(g.retired_dbe)},
                             {"pending", txt(g.retired_pending)}}},
          {"remapped_rows", {{"correctable", num(g.remap_correctable)}, {"uncorrectable", num(g.remap_uncorrectable)},
                             {"pending", txt(g.remap_pending)}, {"failure", txt(g.remap_failure)}}},
          {"clock_reasons", {{"title", g.clock_reasons_title}, {"active", active}, {"flags", txt_map(g.clock_reasons)},
                             {"counters", txt_map(g.clock_reason_counters)}}},
          {"fabric", {{"state", txt(g.fabric_state)}, {"status", txt(g.fabric_status)}, {"health", txt_map(g.fabric_health)}}},
          {"reset", {{"required", txt(g.reset_required)}, {"drain_and_reset", txt(g.drain_and_reset)}}},
          {"temperature_c", {{"current", num(g.temp_current)}, {"slowdown", num(g.temp_slowdown)},
                             {"shutdown", num(g.temp_shutdown)}, {"max_operating", num(g.temp_max_operating)}}}};
}

}  // namespace

std::vector<Finding> nvsmi_query_findings(const NvsmiQueryImport& imp) {
  std::vector<Finding> out;
  for (const auto& g : imp.gpus) {
    pcie_findings(imp, g, out);
    ecc_findings(imp, g, out);
    memory_repair_findings(imp, g, out);
    clock_findings(imp, g, out);
    fabric_findings(imp, g, out);
    reset_findings(imp, g, out);
  }
  return out;
}

nlohmann::json nvsmi_query_data(const NvsmiQueryImport& imp) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : imp.gpus) gpus.push_back(gpu_data(g));
  return {{"tool", "nvidia-smi -q"},
          {"driver_version", imp.driver_version},
          {"cuda_version", imp.cuda_version},
          {"logs", imp.logs},
          {"gpus", gpus}};
}

}  // namespace fabdiag
