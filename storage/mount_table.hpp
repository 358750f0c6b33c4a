// Mount table: /proc/self/mountinfo parsed, and the mount that holds a given path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

struct MountEntry {
  unsigned major = 0;
  unsigned minor = 0;
  std::string root;         // path inside the filesystem that is mounted
  std::string mount_point;  // where it is mounted (octal escapes such as \040 decoded)
  std::string fs_type;      // "ext4", "xfs", "nfs4", "lustre", "fuse.gcsfuse"
  std::string source;       // "/dev/nvme0n1p1", "server:/export"
  std::string options;      // per-mount options ("rw,relatime")
};

// Lines that do not follow the mountinfo format are skipped (the kernel's own file never has any).
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// The mount whose mount point is the longest prefix of `absolute_path` (canonical, no symlinks);
// among mounts stacked on the same point, the last one (the visible one).
std::optional<MountEntry> find_mount(const std::vector<MountEntry>& mounts,
                                     const std::string& absolute_path);

// "local" (a block-device filesystem), "network" (NFS, Lustre, GPFS, BeeGFS, CephFS, SMB, Weka...),
// "memory" (tmpfs, ramfs), or "other" (overlay, fuse without a known network backend...).
std::string filesystem_locality(const std::string& fs_type);

}  // namespace fabcheck
