// Node versions from sysfs, the dynamic linker and uname; NVSwitches and running daemons.
#include "host/node_versions.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/utsname.h>

#include <cstdlib>
#include <fstream>

#include "bench/sys/sysfs_file.hpp"

namespace fabcheck {

std::string kernel_release() {
  utsname name{};
  if (uname(&name) != 0) return "";
  return name.release;
}

std::map<std::string, std::string> hca_firmware(const std::filesystem::path& sysfs_root) {
  std::map<std::string, std::string> firmware;
  std::error_code error;
  const auto dir = sysfs_root / "sys/class/infiniband";
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (auto version = read_sysfs_text(entry.path() / "fw_ver"))
      firmware[entry.path().filename().string()] = *version;
  }
  return firmware;
}

std::string rdma_core_version_of(const std::string& library_file_name) {
  const std::string marker = ".so.1.";
  const std::size_t at = library_file_name.find(marker);
  if (at == std::string::npos) return "";
  const std::string rest = library_file_name.substr(at + marker.size());  // "14.50.0"
  const std::size_t dot = rest.find('.');
  if (dot == std::string::npos || dot + 1 >= rest.size()) return "";
  return rest.substr(dot + 1);
}

std::string rdma_core_version() {
  void* handle = dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) return "";
  std::string version;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) {
    std::error_code error;
    const auto real = std::filesystem::canonical(map->l_name, error);
    version = rdma_core_version_of((error ? std::filesystem::path(map->l_name) : real).filename());
  }
  dlclose(handle);
  return version;
}

std::string ofed_version(const std::filesystem::path& sysfs_root) {
  return read_sysfs_text(sysfs_root / "sys/module/mlx5_core/version").value_or("");
}

int nvswitch_count(const std::filesystem::path& sysfs_root) {
  int count = 0;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(sysfs_root / "sys/bus/pci/devices", error)) {
    const auto vendor = read_sysfs_text(entry.path() / "vendor");
    const auto device_class = read_sysfs_text(entry.path() / "class");
    if (vendor && device_class && *vendor == "0x10de" && device_class->rfind("0x0680", 0) == 0)
      ++count;
  }
  return count;
}

bool process_running(const std::string& name, const std::filesystem::path& proc_root) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, error)) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream comm(entry.path() / "comm");
    std::string text;
    // The kernel keeps 15 characters of a command: "nv-fabricmanager" reads "nv-fabricmanage".
    if (comm && std::getline(comm, text) && text == name.substr(0, 15)) return true;
  }
  return false;
}

}  // namespace fabcheck
