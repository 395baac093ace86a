#include "cmd/import_inputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "triage/hostfile.h"

namespace fabdiag::cmd {

namespace {

namespace fs = std::filesystem;

// `dir`, or its only entry when that is a folder ("collect/" at the top of an archive).
std::string single_top_folder(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec || it == end) return dir;
  fs::path only = it->path();
  bool is_dir = it->is_directory(ec) && !it->is_symlink(ec);
  it.increment(ec);
  return is_dir && !ec && it == end ? only.string() : dir;
}

// The folders between `top` and `file` (not the file's own name).
std::vector<std::string> folders_below(const fs::path& top, const fs::path& file) {
  std::vector<std::string> out;
  fs::path rel = file.lexically_relative(top).parent_path();
  for (const auto& c : rel) out.push_back(c.string());
  return out;
}

// The folder level that names hosts: the one with the most distinct host names (the node level
// of rack1/node05/..., the first level of node05/logs/...); -1 when no level has one.
int host_level(const std::vector<std::vector<std::string>>& folders) {
  std::map<size_t, std::set<std::string>> names;
  for (const auto& f : folders)
    for (size_t d = 0; d < f.size(); ++d)
      if (triage::is_valid_hostname(f[d])) names[d].insert(f[d]);
  int best = -1;
  size_t most = 0;
  for (const auto& [d, set] : names)
    if (set.size() > most) most = set.size(), best = static_cast<int>(d);
  return best;
}

// A directory argument: its regular files (name order) with their host hints, and what was
// skipped in it.
Status walk_directory(const std::string& dir, std::vector<InputFile>& out) {
  std::error_code ec;
  std::vector<std::string> found;
  std::vector<InputFile> skipped;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return make_error(ErrorCode::kPermission, ec.message(), dir);
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error(ErrorCode::kIo, ec.message(), dir);
    const auto st = it->symlink_status(ec);
    if (fs::is_directory(st)) continue;
    const std::string p = it->path().string();
    if (fs::is_regular_file(st)) found.push_back(p);
    else if (fs::is_symlink(st)) skipped.push_back({p, "", "a symbolic link inside a folder is not followed (give its target)"});
    else skipped.push_back({p, "", "not a regular file (a FIFO, socket or device inside a folder is not read)"});
  }
  std::sort(found.begin(), found.end());
  std::vector<std::vector<std::string>> folders;
  for (const auto& f : found) folders.push_back(folders_below(dir, f));
  const int level = host_level(folders);
  for (size_t i = 0; i < found.size(); ++i) {
    const auto& f = folders[i];
    std::string hint = level >= 0 && static_cast<size_t>(level) < f.size() && triage::is_valid_hostname(f[level])
                           ? f[static_cast<size_t>(level)]
                           : "";
    out.push_back({found[i], hint, ""});
  }
  out.insert(out.end(), skipped.begin(), skipped.end());
  return Ok{};
}

}  // namespace

Result<InputSet> collect_inputs(const std::vector<std::string>& args) {
  InputSet set;
  std::set<std::string> seen;
  for (const auto& a : args) {
    if (!seen.insert(a).second) continue;  // the same path twice is read once
    struct stat st {};
    const bool exists = a == "-" || ::stat(a.c_str(), &st) == 0;
    if (!exists) return make_error(ErrorCode::kNotFound, "no such file or directory", a);
    if (a == "-" || S_ISFIFO(st.st_mode)) {  // a pipe can be read once: copy it aside first
      auto s = ExtractedArchive::spool(a);
      if (!s) return s.error();
      set.files.push_back({(*s)->from(), "", ""});
      set.archives.push_back(std::move(*s));
      continue;
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
      return make_error(ErrorCode::kInvalidArgument, "not a file, a directory or a FIFO (a device or socket)", a);
    if (S_ISREG(st.st_mode) && is_archive_path(a)) {
      auto x = ExtractedArchive::extract(a);
      if (!x) return x.error();
      if (auto w = walk_directory(single_top_folder((*x)->dir()), set.files); !w.ok()) return w.error();
      set.archives.push_back(std::move(*x));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (auto w = walk_directory(a, set.files); !w.ok()) return w.error();
      continue;
    }
    set.files.push_back({a, "", ""});
  }
  return set;
}

}  // namespace fabdiag::cmd
