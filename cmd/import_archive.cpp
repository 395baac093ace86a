#include "cmd/import_archive.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <algorithm>
#include <cstring>
#include <optional>

#include <cstdlib>
#include <filesystem>

#include "core/subprocess.h"
#include "core/text.h"

namespace fabdiag::cmd {

namespace {

constexpr double kTarTimeoutS = 600;

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

void rename_in_json(nlohmann::json& j, const std::string& from, const std::string& to) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s.find(from) != std::string::npos) {
      replace_all(s, from, to);
      j = s;
    }
    return;
  }
  if (j.is_structured())
    for (auto& v : j) rename_in_json(v, from, to);
}

void rename_in_envelope(Envelope& env, const std::string& from, const std::string& to) {
  for (auto& f : env.findings) {
    replace_all(f.subject, from, to);
    replace_all(f.message, from, to);
    for (auto& e : f.evidence) replace_all(e.source, from, to);
  }
  for (auto& e : env.errors) {
    replace_all(e.source, from, to);
    replace_all(e.message, from, to);
  }
  rename_in_json(env.params, from, to);
  rename_in_json(env.data, from, to);
}

void rename_in_document(Document& doc, const std::string& from, const std::string& to) {
  replace_all(doc.title, from, to);
  for (auto& s : doc.sections) {
    replace_all(s.title, from, to);
    for (auto& [k, v] : s.fields) replace_all(v, from, to);
    for (auto& l : s.lines) replace_all(l, from, to);
    for (auto& t : s.tables) {
      for (auto& row : t.rows)
        for (auto& cell : row) replace_all(cell, from, to);
      for (auto& n : t.notes) replace_all(n, from, to);
    }
  }
}

// The members tar names in its complaints ("tar: coll/../../x: Member name contains '..'",
// "tar: coll/dev: Cannot mknod: Operation not permitted"), each as "'member' (reason)"; its
// notes ("Removing leading ..."), its summary ("Exiting with failure status ...") and
// complaints about the archive as a whole are not members.
std::vector<std::string> refused_members(const std::string& tar_stderr) {
  std::vector<std::string> out;
  for (const auto& raw : split(tar_stderr, '\n')) {
    std::string line = trim(raw);
    if (!starts_with(line, "tar: ")) continue;
    std::string rest = line.substr(5);
    size_t at = std::string::npos;  // the first ": <reason>" (a member name may hold ": " itself)
    for (const char* reason : {": Member name contains", ": Cannot "}) at = std::min(at, rest.find(reason));
    if (at == std::string::npos || at == 0) continue;
    out.push_back("'" + rest.substr(0, at) + "' (" + rest.substr(at + 2) + ")");
  }
  return out;
}

// The error of a tar run that failed with `exit_code` over `archive`: the members it refused,
// by name, else its last stderr line.
Error tar_failure(const std::string& archive, int exit_code, const std::string& tar_stderr) {
  const std::string head = "tar could not extract it (exit " + std::to_string(exit_code) + ")";
  auto members = refused_members(tar_stderr);
  if (!members.empty()) {
    std::string listed = join_first(members, 4, ", ", "and " + std::to_string(members.size() > 4 ? members.size() - 4 : 0) +
                                                          " more");
    return make_error(ErrorCode::kParse,
                      head + ": it refused member" + (members.size() == 1 ? " " : "s ") + listed +
                          "; nothing of the archive was imported",
                      archive);
  }
  auto lines = split(trim(tar_stderr), '\n');
  return make_error(ErrorCode::kParse, head + (lines.empty() || lines.back().empty() ? std::string() : ": " + lines.back()),
                    archive);
}

}  // namespace

bool is_archive_path(const std::string& path) {
  return ends_with(path, ".tar.gz") || ends_with(path, ".tgz") || ends_with(path, ".tar");
}

Result<std::unique_ptr<ExtractedArchive>> ExtractedArchive::extract(const std::string& archive) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(archive, ec))
    return make_error(ErrorCode::kNotFound, "no such archive (a regular .tar.gz, .tgz or .tar file)", archive);
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/fabdiag-import-XXXXXX";
  if (!mkdtemp(pattern.data())) return make_error(ErrorCode::kIo, "cannot create a temporary directory", pattern);
  std::unique_ptr<ExtractedArchive> a(new ExtractedArchive(archive, pattern));
  auto r = run_process({"tar", "-xf", archive, "-C", a->dir(), "--no-same-owner", "--no-same-permissions"},
                       kTarTimeoutS, nullptr);
  if (!r) {
    Error e = r.error();
    if (e.code == ErrorCode::kNotFound) e = make_error(ErrorCode::kUnavailable, "tar is not installed", archive);
    return e;
  }
  if (r->interrupted_by)
    return make_error(ErrorCode::kInterrupted,
                      std::string("interrupted by ") + (r->interrupted_by == SIGINT ? "SIGINT" : "SIGTERM") +
                          " while tar extracted it",
                      archive);
  if (r->exit_code != 0) return tar_failure(archive, r->exit_code, r->stderr_tail);
  return a;
}

Result<std::unique_ptr<ExtractedArchive>> ExtractedArchive::spool(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/fabdiag-import-XXXXXX";
  if (!mkdtemp(pattern.data())) return make_error(ErrorCode::kIo, "cannot create a temporary directory", pattern);
  std::unique_ptr<ExtractedArchive> a(new ExtractedArchive(name, pattern));
  a->from_ = a->dir_ + "/input";
  a->to_ = name;
  int in = name == "-" ? STDIN_FILENO : ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return make_error(ErrorCode::kIo, std::strerror(errno), name);
  int out = ::open(a->from_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0) {
    if (in != STDIN_FILENO) ::close(in);
    return make_error(ErrorCode::kIo, std::strerror(errno), a->from_);
  }
  char buf[1 << 16];
  std::optional<Error> failed;
  for (;;) {
    ssize_t n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed = make_error(ErrorCode::kIo, std::strerror(errno), name);
    if (n <= 0) break;
    for (ssize_t done = 0; done < n && !failed;) {
      ssize_t w = ::write(out, buf + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) failed = make_error(ErrorCode::kIo, std::string("copying it aside: ") + std::strerror(errno), name);
      else done += w;
    }
    if (failed) break;
  }
  if (in != STDIN_FILENO) ::close(in);
  if (::close(out) != 0 && !failed) failed = make_error(ErrorCode::kIo, std::strerror(errno), a->from_);
  if (failed) return *failed;
  return a;
}

ExtractedArchive::~ExtractedArchive() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void name_archive_members(Pile& pile, const ExtractedArchive& a) {
  const std::string& from = a.from();
  const std::string& to = a.to();
  for (auto& f : pile.files) {
    replace_all(f.path, from, to);
    replace_all(f.why, from, to);
  }
  for (auto& p : pile.parts) {
    for (auto& f : p.files) replace_all(f, from, to);
    rename_in_envelope(p.out.env, from, to);
    rename_in_document(p.out.doc, from, to);
  }
}

}  // namespace fabdiag::cmd
