// `fabdiag gather`: capture this node's /sys subset (probes/capture/sysfs_capture.h) as an anonymised
// fixture directory and/or a .tar.gz made with the system tar (argv, no shell).
#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "core/subprocess.h"
#include "probes/capture/sysfs_capture.h"

namespace fabdiag::cmd {

namespace {

constexpr double kTarTimeoutS = 300;

// Removes a temporary capture directory on every return path.
struct TempDir {
  std::string path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

int run_gather(const GlobalOptions& g, const GatherOptions& o) {
  auto started = std::chrono::steady_clock::now();
  if (o.out_dir.empty() && o.tar_file.empty()) {
    print_error("gather needs --output DIR (a new directory) and/or --tar FILE (a .tar.gz to write)");
    return kExitUsage;
  }
  auto fs = make_fs_root(g);
  if (!fs) {
    print_error(fs.error().to_string() + ": --sysfs-root must name a directory (default /sys)");
    return kExitUsage;
  }
  TempDir tmp;
  std::string dir = o.out_dir;
  if (dir.empty()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fabdiag-gather-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      print_error("cannot create a temporary directory under " + std::filesystem::temp_directory_path().string() +
                  ": " + std::strerror(errno) + " (give --output DIR)");
      return kExitPartial;  // runtime I/O: the capture could not be made here
    }
    tmp.path = dir = tmpl;
  }
  auto progress = stderr_progress(g);
  auto cap = capture_sysfs(*fs, dir, progress);
  if (!cap) return fail_input(cap.error());

  std::string tar_abs;
  if (!o.tar_file.empty()) {
    tar_abs = std::filesystem::absolute(o.tar_file).string();
    progress("writing " + tar_abs);
    auto r = run_process({"tar", "-czf", tar_abs, "-C", dir, "."}, kTarTimeoutS, progress);
    if (!r) {
      print_error(r.error().to_string() + " (gather --tar needs the tar program; use --output DIR without it)");
      return r.error().code == ErrorCode::kNotFound ? kExitMissingCapability : kExitPartial;
    }
    if (r->exit_code != 0 || r->timed_out) {
      print_error("tar failed (exit " + std::to_string(r->exit_code) + ") writing " + tar_abs + ": " + r->stderr_tail);
      return kExitPartial;  // the capture directory exists; the archive could not be written
    }
  }

  Envelope env = make_envelope("fabdiag.gather/1");
  env.params = {{"sysfs_root", g.sysfs_root}, {"output", o.out_dir}, {"tar", o.tar_file}};
  env.data = {{"dir", o.out_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.out_dir)},
              {"tar", o.tar_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(tar_abs)},
              {"files", cap->files},
              {"links", cap->links},
              {"pci_functions", cap->pci_functions},
              {"netdevs", cap->netdevs},
              {"ibdevs", cap->ibdevs},
              {"anonymized",
               {{"guids", cap->guids_replaced},
                {"macs", cap->macs_replaced},
                {"ipv4_in_gids", cap->ipv4_replaced},
                {"pcie_serial_numbers", cap->serials_cleared}}}};
  env.errors = cap->gaps;
  finish_envelope(env, started);

  Document doc;
  doc.title = "fabdiag gather";
  Section s;
  s.title = "Capture";
  if (!o.out_dir.empty()) s.fields.push_back({"Directory", o.out_dir});
  if (!o.tar_file.empty()) s.fields.push_back({"Archive", tar_abs});
  s.fields.push_back({"Copied", std::to_string(cap->files) + " files, " + std::to_string(cap->links) + " links (" +
                                    std::to_string(cap->pci_functions) + " PCI functions, " +
                                    std::to_string(cap->netdevs) + " netdevs, " + std::to_string(cap->ibdevs) +
                                    " RDMA devices)"});
  s.fields.push_back({"Replaced", std::to_string(cap->guids_replaced) + " GUIDs, " + std::to_string(cap->macs_replaced) +
                                      " MAC addresses, " + std::to_string(cap->ipv4_replaced) + " IPv4 addresses in GIDs, " +
                                      std::to_string(cap->serials_cleared) + " PCIe serial numbers; node_desc -> node01"});
  if (!o.out_dir.empty()) s.lines.push_back("Use it: fabdiag topo --sysfs-root " + o.out_dir);
  doc.sections.push_back(std::move(s));
  return emit(g, env, doc);
}

}  // namespace fabdiag::cmd
