#include "import/sysfs_dump_lines.h"

#include "core/text.h"

namespace fabdiag {

std::optional<std::string> dump_title_file(std::string_view raw) {
  std::string t = trim(raw);
  for (auto [open, close] : {std::pair{"=== ", " ==="}, std::pair{"==> ", " <=="}}) {
    if (!starts_with(t, open) || !ends_with(t, close) || t.size() <= 8) continue;
    std::string file = trim(t.substr(4, t.size() - 8));
    if (!file.empty() && file.find(' ') == std::string::npos) return file;
  }
  return std::nullopt;
}

std::optional<std::string> prompt_sysfs_dir(std::string_view raw) {
  std::string t = trim(raw);
  if (starts_with(t, "cd /sys/")) {
    std::string dir = trim(t.substr(3));
    if (dir.find(' ') == std::string::npos) return dir;
    return std::nullopt;
  }
  size_t at = t.find("/sys/");
  if (at == std::string::npos) return std::nullopt;
  // "/sys/...$ cmd" or "user@host:/sys/...# cmd": the path ends at the prompt's '$' or '#'.
  if (at > 0 && !(t[at - 1] == ':' && t.find('@') < at)) return std::nullopt;
  size_t end = t.find_first_of("$#", at);
  if (end == std::string::npos || (end + 1 < t.size() && t[end + 1] != ' ')) return std::nullopt;
  std::string dir = t.substr(at, end - at);
  if (dir.find(' ') != std::string::npos) return std::nullopt;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

bool is_shell_loop_line(std::string_view raw) {
  std::string t = trim(raw);
  if (t == "done" || t == "do" || ends_with(t, "; do") || ends_with(t, "; done")) return true;
  auto w = split_ws(t);
  return !w.empty() && (w[0] == "for" || w[0] == "echo" || w[0] == "cat" || w[0] == "printf");
}

std::string dump_file_path(const std::string& dir, const std::string& file) {
  if (starts_with(file, "/")) return file;
  std::string f = starts_with(file, "./") ? file.substr(2) : file;
  return dir.empty() ? f : dir + "/" + f;
}

}  // namespace fabdiag
