// FsRoot: every /sys and /proc read goes through here, so tests and `gather` can point the
// whole tool at a fixture tree (like hwloc's HWLOC_FSROOT or node_exporter's --path.sysfs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// Injectable roots for sysfs and procfs.
///
/// Paths passed to the methods are *logical* paths relative to the root ("class/net/eth0/mtu"
/// means /sys/class/net/eth0/mtu on a live host, <sysfs_root>/class/net/eth0/mtu on a fixture).
/// Symbolic links inside a fixture must be relative (../../devices/...) so they resolve inside it.
/// An empty procfs root means "no procfs" (a fixture without one): every /proc read is kNotFound,
/// so rules report "unknown" instead of judging a fixture by the live host's kernel.
class FsRoot {
 public:
  /// Live system: /sys and /proc.
  FsRoot() = default;
  FsRoot(std::string sysfs_root, std::string procfs_root)
      : sysfs_root_(std::move(sysfs_root)), procfs_root_(std::move(procfs_root)) {}

  const std::string& sysfs_root() const { return sysfs_root_; }
  const std::string& procfs_root() const { return procfs_root_; }

  /// Checks that both roots exist and are directories. Errors: kNotFound naming the root.
  Status validate() const;

  /// Physical path of a logical sysfs path.
  std::string sys_path(const std::string& rel) const;
  /// Physical path of a logical procfs path.
  std::string proc_path(const std::string& rel) const;

  /// Whole file under sysfs, with trailing whitespace (newlines) removed.
  /// Errors: kNotFound (ENOENT), kPermission (EACCES/EPERM), kUnsupported (EOPNOTSUPP/EINVAL/
  /// ENODATA, which sysfs attributes return for "no such value here"), kIo otherwise, EFBIG
  /// ("File too large") past 16 MiB (a file that never ends, such as a link to /dev/zero). A FIFO
  /// reads as empty instead of waiting for a writer.
  Result<std::string> read_sys(const std::string& rel) const;
  /// Same for procfs.
  Result<std::string> read_proc(const std::string& rel) const;

  /// Raw bytes of a sysfs file, at most `max_bytes` (for PCI config space). Same errors.
  Result<std::vector<uint8_t>> read_sys_bytes(const std::string& rel, size_t max_bytes) const;

  /// Names of the entries of a sysfs directory, sorted in natural order (mlx5_2 < mlx5_10).
  /// Errors: kNotFound when the directory does not exist.
  Result<std::vector<std::string>> list_sys(const std::string& rel) const;

  /// One file of a directory read by read_sys_dir().
  struct DirFile {
    std::string name;          ///< The entry's name.
    Result<std::string> text;  ///< As read_sys() gives it (a subdirectory: kIo, EISDIR).
  };
  /// Every entry of a sysfs directory and its contents, in list_sys() order, each opened
  /// relative to the directory (openat: the kernel walks the path once, not once per file).
  /// Errors: kNotFound when the directory does not exist (per file: as read_sys()).
  Result<std::vector<DirFile>> read_sys_dir(const std::string& rel) const;

  /// True when the sysfs path exists (following links).
  bool exists_sys(const std::string& rel) const;
  /// True when the procfs path exists.
  bool exists_proc(const std::string& rel) const;

  /// Logical path (relative to the sysfs root, no leading '/') that `rel` resolves to after
  /// following all symbolic links, e.g. "class/net/eth0/device" ->
  /// "devices/pci0000:16/0000:16:02.0/0000:17:00.0". Errors: kNotFound; kInvalidArgument when
  /// the link points outside the root (an absolute link in a fixture).
  Result<std::string> canonical_sys(const std::string& rel) const;

  /// Last path component of the symlink target (e.g. driver name of ".../driver").
  Result<std::string> link_name_sys(const std::string& rel) const;

 private:
  std::string sysfs_root_ = "/sys";
  std::string procfs_root_ = "/proc";
};

/// True when `fs` reads this machine's /sys: its sysfs root is the same directory as "/sys"
/// (also through a link or with a trailing '/'). Sources that ask the kernel directly (the
/// SIOCETHTOOL ioctl, ethtool netlink, NVML) describe this machine only, so they are used only
/// when this is true; a fixture or a `gather` capture gets their fixture-file stand-ins.
/// False when either path does not exist.
bool is_live_sysfs(const FsRoot& fs);

/// Natural ("version") order: digit runs compare numerically, so mlx5_2 < mlx5_10.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace fabdiag
