// The FILE, DIR and ARCHIVE arguments of `fabdiag import` and `triage --from` as a list of
// files to read: directories walked, archives extracted, stdin and FIFOs spooled to a private
// temporary file (so a file can be looked at for its format and then read), devices refused,
// and the host each file's folder names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cmd/import_archive.h"
#include "core/result.h"

namespace fabdiag::cmd {

/// One input file.
struct InputFile {
  std::string path;       ///< Where to read it (a spooled copy for stdin or a FIFO).
  std::string host_hint;  ///< The host its folder names ("" = none).
  std::string skipped;    ///< Not read, and why (a symbolic link, a FIFO or device inside a folder).
};

/// Every input of a run, and what must live as long as they are read.
struct InputSet {
  std::vector<InputFile> files;
  std::vector<std::unique_ptr<ExtractedArchive>> archives;  ///< Extracted archives and spooled inputs.
};

/// Expands `args`: a regular file as it is; "-" and FIFOs copied into a temporary file first
/// (named "-" or the FIFO in results); a .tar.gz/.tgz/.tar extracted (import_archive.h); a
/// directory walked in name order, its regular files read and its links, FIFOs and devices listed
/// as skipped. The same path twice is read once. Host hints: below a directory argument, the
/// folder level whose names are host names and that has the most distinct names (the node
/// level of DIR/rack1/node05/..., not the rack level).
/// Errors: kNotFound (a path that does not exist), kInvalidArgument (a device given as an
/// argument), kInterrupted (Ctrl-C while tar extracted or stdin was copied), and those of
/// ExtractedArchive::extract().
Result<InputSet> collect_inputs(const std::vector<std::string>& args);

}  // namespace fabdiag::cmd
