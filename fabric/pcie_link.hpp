// PCIe link state of GPUs, NICs and NVMe controllers, read from sysfs under a chosen root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sys/sysfs_file.hpp"

namespace fabcheck {

// hca: an RDMA-capable adapter (InfiniBand class, or a NIC with an infiniband/ directory, i.e.
// RoCE); nic: any other network controller (e.g. the on-board management port).
enum class PcieDeviceKind { gpu, hca, nic, nvme, other };
const char* to_string(PcieDeviceKind kind);  // "gpu", "hca", "nic", "nvme", "other"

// Kind from the PCI class code ("0x030200") and vendor ("0x10de"): display/3D controllers of GPU
// vendors, InfiniBand controllers (hca), network controllers (nic), NVMe (0x010802).
PcieDeviceKind classify_pci_device(std::string_view class_code, std::string_view vendor);

// "16.0 GT/s PCIe" or the older "16 GT/s" -> 16.0; "Unknown", empty or anything else -> nullopt.
std::optional<double> parse_link_speed_gts(std::string_view text);

// PCIe generation of a per-lane rate: 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6; 0 if
// none.
int pcie_generation(double gts);

// Sum of the "TOTAL_ERR_*" line of an aer_dev_* file ("<Name> <count>" lines); nullopt if absent.
std::optional<std::uint64_t> parse_aer_total(std::string_view text);

struct PcieLinkState {
  std::string bdf;  // "0000:17:00.0"
  PcieDeviceKind kind = PcieDeviceKind::other;
  std::string class_code;
  std::string vendor;
  std::string device;
  std::string driver;         // bound driver's name, "" when none
  std::string upstream_port;  // BDF of the bridge above it, "" at the root complex
  std::optional<double> current_gts;
  std::optional<double> max_gts;
  std::optional<int> current_width;
  std::optional<int> max_width;
  std::optional<std::uint64_t> aer_correctable;
  std::optional<std::uint64_t> aer_nonfatal;
  std::optional<std::uint64_t> aer_fatal;

  bool has_link_state() const { return current_gts && max_gts && current_width && max_width; }
  int current_gen() const { return current_gts ? pcie_generation(*current_gts) : 0; }
  int max_gen() const { return max_gts ? pcie_generation(*max_gts) : 0; }
  // "Gen4 x8 (max Gen5 x16)"
  std::string describe() const;
};

// Every GPU, NIC and NVMe controller under <sysfs_root>/sys/bus/pci/devices, sorted by BDF. A
// missing directory gives an empty list. What cannot be read or understood (a folder that cannot
// be listed, a device whose class cannot be read, a link speed or width that is not one) is added
// to `problems`, so that it is reported, never taken as healthy.
std::vector<PcieLinkState> read_pcie_links(const std::filesystem::path& sysfs_root,
                                           std::vector<SysfsProblem>* problems = nullptr);

// One device directory (for tests and the fuzz target).
PcieLinkState read_pcie_device(const std::filesystem::path& device_dir, const std::string& bdf,
                               std::vector<SysfsProblem>* problems = nullptr);

}  // namespace fabcheck
