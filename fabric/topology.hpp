// GPU-to-HCA placement from sysfs: each GPU's PCIe path and NUMA node, its nearest HCA and how
// many PCIe hops apart they are (2 per bridge level below their common ancestor).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fabcheck {

// Bridges from the root complex down to the device, and the device itself:
// {"0000:16:01.0", "0000:17:00.0", "0000:18:00.0"}. Empty when the device is unknown.
std::vector<std::string> pcie_path(const std::filesystem::path& sysfs_root, const std::string& bdf);

// Links between two devices through their lowest common bridge; -1 when they share no root
// complex (then traffic crosses the CPU interconnect).
int pcie_hops(const std::vector<std::string>& a, const std::vector<std::string>& b);

struct GpuPlacement {
  std::string gpu_bdf;
  int gpu_numa = -1;
  std::vector<std::string> path;
  std::string hca;  // "mlx5_0", "" when the node has none
  std::string hca_bdf;
  int hca_numa = -1;
  int hops = -1;  // -1: different root complex (or no HCA)
};

// For every GPU under the root, the HCA with the fewest hops (ties: lowest name).
std::vector<GpuPlacement> gpu_placements(const std::filesystem::path& sysfs_root);

}  // namespace fabcheck
