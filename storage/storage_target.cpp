// Storage target discovery: path -> mount -> major:minor -> sysfs block device -> PCI function.
#include "storage/storage_target.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>

#include "bench/sys/text_scan.hpp"
#include "storage/mount_table.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

std::string read_first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n' || line.back() == '\r')) {
    line.pop_back();
  }
  return line;
}

bool is_pci_address(const std::string& name) {
  static const std::regex kBdf("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
  return std::regex_match(name, kBdf);
}

bool is_nvme_controller(const std::string& name) {
  static const std::regex kController("nvme[0-9]+");
  return std::regex_match(name, kController);
}

// Walks up from a device directory to the first PCI function, noting an NVMe controller on the way.
void find_pci_function(const fs::path& start, const fs::path& sysfs_root, BlockDevice& device) {
  std::error_code error;
  const fs::path devices_root = sysfs_root / "sys" / "devices";
  for (fs::path dir = start; !dir.empty() && dir != dir.root_path() && dir != devices_root;
       dir = dir.parent_path()) {
    const std::string name = dir.filename().string();
    if (device.controller.empty() && is_nvme_controller(name)) device.controller = name;
    if (is_pci_address(name)) {
      device.pci_address = name;
      device.link_speed = read_first_line(dir / "current_link_speed");
      device.link_width = read_first_line(dir / "current_link_width");
      device.max_link_speed = read_first_line(dir / "max_link_speed");
      device.max_link_width = read_first_line(dir / "max_link_width");
      const fs::path driver = fs::read_symlink(dir / "driver", error);
      if (!error) device.pci_driver = driver.filename().string();
      return;
    }
  }
}

// NVMe multipath puts the namespace under a virtual subsystem; its controllers are listed there.
void find_pci_through_subsystem(const fs::path& disk_dir, const fs::path& sysfs_root,
                                BlockDevice& device) {
  std::error_code error;
  const fs::path subsystem = fs::canonical(disk_dir / "device", error);
  if (error) return;
  for (const fs::directory_entry& entry : fs::directory_iterator(subsystem, error)) {
    const std::string name = entry.path().filename().string();
    if (!is_nvme_controller(name)) continue;
    const fs::path controller = fs::canonical(entry.path(), error);
    if (error) continue;
    find_pci_function(controller, sysfs_root, device);
    if (!device.pci_address.empty()) return;
  }
}

std::string list_slaves(const fs::path& disk_dir) {
  std::error_code error;
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(disk_dir / "slaves", error)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return text::join(names, ",");
}

std::string read_file_text(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

BlockDevice describe_block_device(const fs::path& sysfs_root, unsigned major, unsigned minor) {
  BlockDevice device;
  std::error_code error;
  const fs::path link =
      sysfs_root / "sys" / "dev" / "block" / (std::to_string(major) + ":" + std::to_string(minor));
  const fs::path dir = fs::canonical(link, error);
  if (error) return device;
  device.name = dir.filename().string();
  const fs::path disk_dir = fs::exists(dir / "partition") ? dir.parent_path() : dir;
  device.disk = disk_dir.filename().string();
  device.rotational = read_first_line(disk_dir / "queue" / "rotational");
  device.model = read_first_line(disk_dir / "device" / "model");
  device.members = list_slaves(disk_dir);
  find_pci_function(disk_dir, sysfs_root, device);
  if (device.pci_address.empty()) find_pci_through_subsystem(disk_dir, sysfs_root, device);
  if (device.model.empty() && !device.controller.empty()) {
    // The controller directory holds the model for NVMe namespaces under multipath.
    device.model =
        read_first_line(sysfs_root / "sys" / "class" / "nvme" / device.controller / "model");
  }
  return device;
}

std::map<std::string, std::string> StorageTarget::params() const {
  std::map<std::string, std::string> params;
  auto put = [&](const std::string& key, const std::string& value) {
    if (!value.empty()) params[key] = value;
  };
  put("fs_type", fs_type);
  put("locality", locality);
  put("mount", mount_point);
  put("mount_source", mount_source);
  put("device", device.name);
  if (device.disk != device.name) put("disk", device.disk);
  put("controller", device.controller);
  put("model", device.model);
  put("pci", device.pci_address);
  put("pci_driver", device.pci_driver);
  put("members", device.members);
  put("rotational", device.rotational);
  if (!device.pci_address.empty()) {
    params["pci_link"] = device.link_speed.empty()
                             ? "not reported"
                             : device.link_speed + " x" + device.link_width + " (max " +
                                   device.max_link_speed + " x" + device.max_link_width + ")";
  }
  return params;
}

std::string StorageTarget::summary() const {
  std::string text = path + ": " + (fs_type.empty() ? "unknown filesystem" : fs_type) + " " +
                     (locality.empty() ? "" : locality);
  if (device.name.empty()) {
    if (!mount_source.empty()) text += " from " + mount_source;
    return text;
  }
  text += " on " + device.name + " (";
  std::string inner;
  auto add = [&](const std::string& part) {
    if (!part.empty()) inner += (inner.empty() ? "" : " ") + part;
  };
  add(device.controller);
  add(device.model);
  if (!device.pci_address.empty()) {
    add(device.pci_address);
    add(device.link_speed.empty() ? "PCIe link not reported"
                                  : device.link_speed + " x" + device.link_width);
  }
  return text + (inner.empty() ? "no sysfs details" : inner) + ")";
}

StorageTarget discover_storage_target(const std::string& path, const fs::path& sysfs_root,
                                      std::string_view mountinfo) {
  StorageTarget target;
  target.path = path;
  std::error_code error;
  target.canonical_path = fs::weakly_canonical(fs::absolute(path, error), error).string();
  if (target.canonical_path.empty()) target.canonical_path = path;
  const std::vector<MountEntry> mounts = parse_mountinfo(mountinfo);
  const std::optional<MountEntry> mount = find_mount(mounts, target.canonical_path);
  if (!mount) return target;
  target.mount_point = mount->mount_point;
  target.mount_source = mount->source;
  target.fs_type = mount->fs_type;
  target.locality = filesystem_locality(mount->fs_type);
  unsigned major = mount->major;
  unsigned minor = mount->minor;
  // btrfs and others report an anonymous device (major 0); the mount source names the real one.
  struct stat source_stat {};
  if (major == 0 && mount->source.rfind("/dev/", 0) == 0 &&
      ::stat(mount->source.c_str(), &source_stat) == 0 && S_ISBLK(source_stat.st_mode)) {
    major = ::major(source_stat.st_rdev);
    minor = ::minor(source_stat.st_rdev);
  }
  if (major != 0) target.device = describe_block_device(sysfs_root, major, minor);
  return target;
}

StorageTarget discover_storage_target(const std::string& path, const fs::path& sysfs_root) {
  return discover_storage_target(path, sysfs_root, read_file_text("/proc/self/mountinfo"));
}

}  // namespace fabcheck
