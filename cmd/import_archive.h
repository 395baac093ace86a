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
  /// Errors: kNotFound (no such archive), kUnavailable (no tar), kParse (tar failed: its last
  /// stderr line), kIo (no temporary directory).
  static Result<std::unique_ptr<ExtractedArchive>> extract(const std::string& archive);
  ~ExtractedArchive();
  ExtractedArchive(const ExtractedArchive&) = delete;
  ExtractedArchive& operator=(const ExtractedArchive&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& archive() const { return archive_; }

 private:
  ExtractedArchive(std::string archive, std::string dir) : archive_(std::move(archive)), dir_(std::move(dir)) {}
  std::string archive_, dir_;
};

/// Replaces "DIR/" by "ARCHIVE:" in every string of `pile` (file paths, findings, errors, data,
/// documents), so results name the archive's members, not the temporary directory.
void name_archive_members(Pile& pile, const ExtractedArchive& a);

}  // namespace fabdiag::cmd
