// --storage-path checks with statvfs(3) and access(2).
#include "storage/path_validation.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "results/units.hpp"

namespace fabcheck {

namespace {

// The name of the kernel's pseudo filesystem `path` is on (procfs, sysfs, ...), or nullptr.
const char* kernel_interface_filesystem(const std::string& path) {
  struct statfs info {};
  if (::statfs(path.c_str(), &info) != 0) return nullptr;
  switch (static_cast<unsigned long>(info.f_type)) {
    case 0x9fa0:  // PROC_SUPER_MAGIC
      return "procfs";
    case 0x62656572:  // SYSFS_MAGIC
      return "sysfs";
    case 0x1cd1:  // DEVPTS_SUPER_MAGIC
      return "devpts";
    case 0x27e0eb:    // CGROUP_SUPER_MAGIC
    case 0x63677270:  // CGROUP2_SUPER_MAGIC
      return "cgroupfs";
    case 0x64626720:  // DEBUGFS_MAGIC
      return "debugfs";
    case 0x74726163:  // TRACEFS_MAGIC
      return "tracefs";
    case 0x73636673:  // SECURITYFS_MAGIC
      return "securityfs";
    case 0xcafe4a11:  // BPF_FS_MAGIC
      return "bpffs";
    case 0x62656570:  // CONFIGFS_MAGIC
      return "configfs";
    case 0xde5e81e4:  // EFIVARFS_MAGIC
      return "efivarfs";
    case 0x6165676c:  // PSTOREFS_MAGIC
      return "pstore";
    default:
      return nullptr;
  }
}

ConfigError path_error(const std::string& path, const std::string& why) {
  return ConfigError("--storage-path", 0, "\"" + path + "\" " + why);
}

}  // namespace

void validate_storage_paths(const std::vector<std::string>& paths, std::uint64_t planned_bytes) {
  for (const std::string& path : paths) {
    struct stat info {};
    if (path.empty()) throw path_error(path, "is empty");
    if (::stat(path.c_str(), &info) != 0) {
      throw path_error(path, errno == ENOENT
                                 ? "does not exist"
                                 : std::string("cannot be read: ") + std::strerror(errno));
    }
    if (!S_ISDIR(info.st_mode))
      throw path_error(path, "is " + describe_path(path) + ", not a directory");
    struct statvfs fs {};
    if (::statvfs(path.c_str(), &fs) != 0) {
      throw path_error(path, std::string("statvfs failed: ") + std::strerror(errno));
    }
    if (const char* pseudo = kernel_interface_filesystem(path)) {
      throw path_error(path, std::string("is on ") + pseudo +
                                 ", a kernel interface, not storage: give a directory on the "
                                 "disk or the shared filesystem to test");
    }
    if ((fs.f_flag & ST_RDONLY) != 0) throw path_error(path, "is on a read-only filesystem");
    if (::access(path.c_str(), W_OK | X_OK) != 0) {
      throw path_error(path, std::string("is not writable: ") + std::strerror(errno));
    }
    const std::uint64_t free_bytes =
        static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_frsize);
    if (free_bytes < planned_bytes) {
      throw path_error(path, "has " + format_bytes(free_bytes) + " free, fewer than the " +
                                 format_bytes(planned_bytes) +
                                 " the storage probes plan to write (lower storage.file_size or "
                                 "storage.ckpt_size)");
    }
  }
}

}  // namespace fabcheck
