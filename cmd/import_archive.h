// A collection packed as .tar.gz / .tgz / .tar (what `fabdiag gather` or a site's script leaves
// from many nodes): extracted with tar into a private temporary directory for the walk of
// `fabdiag import` and `triage --from`, its members then named "ARCHIVE:member" in the results.
#pragma once

#include <memory>
#include <string>

#include "cmd/import_any.h"
#include "core/result.h"

namespace fabdiag::cmd {

/// True for a path ending in .tar.gz, .tgz or .tar.
bool is_archive_path(const std::string& path);

/// An archive extracted into a fresh 0700 directory under $TMPDIR (or /tmp), removed with it.
class ExtractedArchive {
 public:
  /// Runs `tar -xf ARCHIVE -C DIR --no-same-owner --no-same-permissions` (GNU tar refuses
  /// members with "..", strips a leading "/"; links in it are not followed by the walk).
  /// Errors: kNotFound (no such archive), kUnavailable (no tar), kParse (tar failed: the
  /// members it refused, by name and reason, else its last stderr line), kIo (no temporary
  /// directory).
  static Result<std::unique_ptr<ExtractedArchive>> extract(const std::string& archive);
  /// Copies stdin (`name` "-") or the FIFO `name` into DIR/input, so that it can be looked at
  /// and then read; results name it `name`. Errors: kIo (a read or write failed), kInterrupted.
  static Result<std::unique_ptr<ExtractedArchive>> spool(const std::string& name);
  ~ExtractedArchive();
  ExtractedArchive(const ExtractedArchive&) = delete;
  ExtractedArchive& operator=(const ExtractedArchive&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& archive() const { return archive_; }
  /// What results show instead of the temporary paths: `from()` is replaced by `to()`.
  const std::string& from() const { return from_; }
  const std::string& to() const { return to_; }

 private:
  ExtractedArchive(std::string archive, std::string dir)
      : archive_(std::move(archive)), dir_(std::move(dir)), from_(dir_ + "/"), to_(archive_ + ":") {}
  std::string archive_, dir_, from_, to_;
};

/// Replaces from() by to() ("DIR/" by "ARCHIVE:") in every string of `pile` (file paths, findings, errors, data,
/// documents), so results name the archive's members, not the temporary directory.
void name_archive_members(Pile& pile, const ExtractedArchive& a);

}  // namespace fabdiag::cmd
