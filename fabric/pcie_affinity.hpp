// Where a PCIe device sits: its NUMA node and nearby CPUs, and which GPU shares the most of its
// PCIe path (same switch first), from sysfs under a root.
#pragma once

#include "bench/sys/cpu_list.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace fabcheck {

// <root>/sys/bus/pci/devices/<bdf>/numa_node; -1 when unknown.
int pci_numa_node(const std::filesystem::path& sysfs_root, const std::string& bdf);

// CPUs listed in local_cpulist ("0-15,32-47"); empty when unknown or malformed.
std::vector<int> pci_local_cpus(const std::filesystem::path& sysfs_root, const std::string& bdf);

// Of `candidates`, the BDF whose sysfs device path shares the longest prefix with `bdf`'s
// (behind the same PCIe switch beats the same root complex); "" when there are none.
std::string nearest_pci_device(const std::filesystem::path& sysfs_root, const std::string& bdf,
                               const std::vector<std::string>& candidates);

}  // namespace fabcheck
