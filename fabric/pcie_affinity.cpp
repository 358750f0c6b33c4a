// Where a PCIe device sits: its NUMA node and nearby CPUs, and the GPU nearest to it in PCIe.
#include "fabric/pcie_affinity.hpp"

#include <algorithm>
#include <iterator>

#include "bench/sys/sysfs_file.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {
fs::path device_dir(const fs::path& root, const std::string& bdf) {
  return root / "sys/bus/pci/devices" / bdf;
}
}  // namespace

int pci_numa_node(const fs::path& sysfs_root, const std::string& bdf) {
  auto text = read_sysfs_text(device_dir(sysfs_root, bdf) / "numa_node");
  if (!text) return -1;
  auto node = text::parse_small_int(*text);
  return node ? *node : -1;
}

std::vector<int> pci_local_cpus(const fs::path& sysfs_root, const std::string& bdf) {
  auto text = read_sysfs_text(device_dir(sysfs_root, bdf) / "local_cpulist");
  return text ? parse_cpu_list(*text).value_or(std::vector<int>{}) : std::vector<int>{};
}

std::string nearest_pci_device(const fs::path& sysfs_root, const std::string& bdf,
                               const std::vector<std::string>& candidates) {
  std::error_code error;
  fs::path self = fs::canonical(device_dir(sysfs_root, bdf), error);
  if (error) return candidates.empty() ? "" : candidates.front();
  std::string best;
  std::ptrdiff_t best_shared = -1;
  for (const auto& candidate : candidates) {
    fs::path other = fs::canonical(device_dir(sysfs_root, candidate), error);
    if (error) continue;
    auto [a, b] = std::mismatch(self.begin(), self.end(), other.begin(), other.end());
    std::ptrdiff_t shared = std::distance(self.begin(), a);
    if (shared > best_shared) {
      best_shared = shared;
      best = candidate;
    }
  }
  return best;
}

}  // namespace fabcheck
