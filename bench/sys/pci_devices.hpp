// The devices on the PCI bus as sysfs lists them (<root>/sys/bus/pci/devices/<BDF>: vendor,
// device, class, the driver bound): what a node physically has, whatever its drivers report.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bench/sys/sysfs_file.hpp"

namespace fabcheck {

inline constexpr const char* kNvidiaVendorId = "0x10de";

struct PciDevice {
  std::string bdf;         // "0000:18:00.0"
  std::string vendor;      // "0x10de", lower case
  std::string device;      // "0x2330"
  std::string class_code;  // "0x030200"
  std::string driver;      // the bound driver's name ("nvidia"); "" when none is bound
  std::string nvme_model;  // an NVMe controller's model (nvme/nvme*/model), else ""

  // "10de:2330"
  std::string vendor_device() const;
};

// Every device under <sysfs_root>/sys/bus/pci/devices, by BDF. An attribute that exists but cannot
// be read goes to `problems`.
std::vector<PciDevice> read_pci_devices(const std::filesystem::path& sysfs_root,
                                        std::vector<SysfsProblem>* problems = nullptr);

// An NVIDIA GPU: vendor 0x10de, class 3D controller (0x0302xx) or VGA controller (0x0300xx).
bool is_nvidia_gpu(const PciDevice& device);
// An NVMe controller: class 0x010802.
bool is_nvme_controller(const PciDevice& device);

// The NVIDIA GPUs among `devices`, in BDF order.
std::vector<PciDevice> nvidia_gpus(const std::vector<PciDevice>& devices);

}  // namespace fabcheck
