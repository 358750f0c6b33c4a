// The devices on the PCI bus from sysfs: identity, class and bound driver.
#include "bench/sys/pci_devices.hpp"

#include <algorithm>
#include <system_error>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

std::string lower_attribute(const fs::path& file, std::vector<SysfsProblem>* problems) {
  return text::lower(read_sysfs_text(file, problems).value_or(""));
}

// The class code without "0x" ("030200"); "" when it is not six hex digits.
std::string class_digits(const PciDevice& device) {
  std::string code = device.class_code;
  if (code.rfind("0x", 0) == 0) code.erase(0, 2);
  return code.size() == 6 ? code : std::string();
}

}  // namespace

std::string PciDevice::vendor_device() const {
  auto bare = [](const std::string& id) { return id.rfind("0x", 0) == 0 ? id.substr(2) : id; };
  return bare(vendor) + ":" + bare(device);
}

std::vector<PciDevice> read_pci_devices(const fs::path& sysfs_root,
                                        std::vector<SysfsProblem>* problems) {
  std::vector<PciDevice> devices;
  const fs::path bus = sysfs_root / "sys/bus/pci/devices";
  for (const fs::path& entry : list_sysfs_dir(bus, problems)) {
    PciDevice device;
    device.bdf = entry.filename().string();
    device.vendor = lower_attribute(entry / "vendor", problems);
    device.device = lower_attribute(entry / "device", problems);
    device.class_code = lower_attribute(entry / "class", problems);
    std::error_code error;
    const fs::path driver = fs::read_symlink(entry / "driver", error);
    if (!error) device.driver = driver.filename().string();
    if (is_nvme_controller(device)) {
      for (const fs::path& controller : list_sysfs_dir(entry / "nvme", problems)) {
        device.nvme_model = read_sysfs_text(controller / "model", problems).value_or("");
        if (!device.nvme_model.empty()) break;
      }
    }
    devices.push_back(std::move(device));
  }
  std::sort(devices.begin(), devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.bdf < b.bdf; });
  return devices;
}

bool is_nvidia_gpu(const PciDevice& device) {
  const std::string code = class_digits(device);
  return device.vendor == kNvidiaVendorId && (code.rfind("0302", 0) == 0 || code.rfind("0300", 0) == 0);
}

bool is_nvme_controller(const PciDevice& device) { return class_digits(device) == "010802"; }

std::vector<PciDevice> nvidia_gpus(const std::vector<PciDevice>& devices) {
  std::vector<PciDevice> gpus;
  std::copy_if(devices.begin(), devices.end(), std::back_inserter(gpus), is_nvidia_gpu);
  return gpus;
}

}  // namespace fabcheck
