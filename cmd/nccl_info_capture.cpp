#include "cmd/nccl_info_capture.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/environment.h"
#include "import/nccl_log.h"

namespace fabdiag::cmd {

namespace {

// The names of the plain files in `folder` (NCCL's "nccl.<host>.<pid>.log"), sorted.
std::vector<std::string> files_in(const std::string& folder) {
  std::vector<std::string> out;
  DIR* d = opendir(folder.c_str());
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(folder + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// At most `limit` bytes of `path`, ending in a newline when there is any text.
std::string read_capped(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.resize(limit);
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  if (!text.empty() && text.back() != '\n') {
    // A line cut by the limit is dropped whole, so the reader never sees half a line.
    const size_t nl = text.rfind('\n');
    text.resize(nl == std::string::npos ? 0 : nl + 1);
  }
  return text;
}

}  // namespace

NcclInfoCapture::NcclInfoCapture() {
  const Environment& env = process_environment();
  for (const char* name : {"NCCL_DEBUG", "NCCL_DEBUG_FILE"})
    if (env.get(name)) {
      why_not_ = std::string(name) + " is set by the user (" + *env.get(name) + "): NCCL logs where it says";
      return;
    }
  std::string folder = env.get_nonempty("TMPDIR").value_or("/tmp") + "/fabdiag-nccl-XXXXXX";
  if (!mkdtemp(folder.data())) {
    why_not_ = "cannot make a folder for NCCL's log (mkdtemp " + folder + " failed)";
    return;
  }
  folder_ = folder;
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_FILE", (folder_ + "/nccl.%h.%p.log").c_str(), 1);
}

NcclInfoCapture::~NcclInfoCapture() {
  if (!active()) return;
  for (const auto& f : files_in(folder_)) unlink(f.c_str());
  rmdir(folder_.c_str());
  unsetenv("NCCL_DEBUG");
  unsetenv("NCCL_DEBUG_FILE");
}

std::string NcclInfoCapture::text() const {
  std::string out;
  if (!active()) return out;
  for (const auto& f : files_in(folder_)) out += read_capped(f, kMaxNcclInfoBytesPerProcess);
  return out;
}

Result<nlohmann::json> collect_nccl_transport(perf::Comm& host, const std::optional<NcclInfoCapture>& capture) {
  if (!capture) return nlohmann::json(nullptr);
  auto all = host.gather_strings(capture->text(), 0);
  if (!all) return all.error().with_context("gathering NCCL's INFO lines");
  if (host.rank() != 0) return nlohmann::json(nullptr);
  std::string text;
  for (const auto& t : *all) text += t;
  return nccl_transport_json(text, capture->why_not());
}

nlohmann::json nccl_transport_json(const std::string& text, const std::string& why_not) {
  if (!why_not.empty()) return {{"captured", false}, {"reason", why_not}};
  auto imp = import_nccl_log(text, "NCCL_DEBUG_FILE");
  if (!imp) return {{"captured", false}, {"reason", "NCCL's log was not read: " + imp.error().to_string()}};
  nlohmann::json hosts = nccl_log_data(*imp)["hosts"];
  for (size_t k = 0; k < hosts.size() && k < imp->hosts.size(); ++k) {
    const std::string mode = nccl_gdr_mode(imp->hosts[k]);
    hosts[k]["gdr_mode"] = mode.empty() ? nlohmann::json(nullptr) : nlohmann::json(mode);
  }
  nlohmann::json gaps = nlohmann::json::array();
  for (const auto& g : imp->gaps) gaps.push_back(g.to_string());
  return {{"captured", true}, {"lines", imp->lines}, {"nccl_lines", imp->nccl_lines}, {"hosts", hosts}, {"gaps", gaps}};
}

}  // namespace fabdiag::cmd
