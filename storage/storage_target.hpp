// StorageTarget: what backs a --storage-path (mount, filesystem type, local or network, block
// device, NVMe controller, its PCI function and link), found from mountinfo and sysfs.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace fabcheck {

// The block device behind major:minor, as sysfs describes it. Fields stay empty where sysfs has
// nothing (a virtual disk has no PCIe link files).
struct BlockDevice {
  std::string name;         // as mounted: "nvme0n1p2", "vda", "dm-0"
  std::string disk;         // the whole disk: "nvme0n1"
  std::string controller;   // NVMe controller: "nvme0"
  std::string model;        // "SAMSUNG MZQL23T8HCLS-00A07"
  std::string pci_address;  // nearest PCI function above the disk: "0000:01:00.0"
  std::string pci_driver;   // "nvme", "virtio-pci"
  std::string link_speed;   // "16.0 GT/s PCIe"
  std::string link_width;   // "4"
  std::string max_link_speed;
  std::string max_link_width;
  std::string rotational;  // "0" / "1"
  std::string members;     // device-mapper / md members ("nvme0n1,nvme1n1"), from slaves/
};

struct StorageTarget {
  std::string path;  // as given
  std::string canonical_path;
  std::string mount_point;
  std::string mount_source;
  std::string fs_type;
  std::string locality;  // filesystem_locality(fs_type)
  BlockDevice device;    // empty name for filesystems without a block device (NFS, tmpfs)

  // Parameters for every measurement on this path: fs_type, locality, mount, device, disk,
  // controller, model, pci, pci_link ("16.0 GT/s PCIe x4 (max 16.0 GT/s PCIe x4)"), rotational...
  std::map<std::string, std::string> params() const;
  // One line for tables and findings: "/mnt/nvme: ext4 local on nvme0n1p1 (nvme0 SAMSUNG ...,
  // 0000:01:00.0 PCIe 16.0 GT/s PCIe x4)".
  std::string summary() const;
};

// Reads <sysfs_root>/sys/dev/block/<major>:<minor> and the directories above it.
BlockDevice describe_block_device(const std::filesystem::path& sysfs_root, unsigned major,
                                  unsigned minor);

// `mountinfo` is the text of /proc/self/mountinfo. A path that is not on any mount, or whose device
// sysfs does not know, gives a target with the fields it could find; it never throws.
StorageTarget discover_storage_target(const std::string& path,
                                      const std::filesystem::path& sysfs_root,
                                      std::string_view mountinfo);

// Same, reading this process's /proc/self/mountinfo.
StorageTarget discover_storage_target(const std::string& path,
                                      const std::filesystem::path& sysfs_root);

}  // namespace fabcheck
