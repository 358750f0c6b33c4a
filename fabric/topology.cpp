// GPU-to-HCA placement from sysfs: PCIe paths, NUMA nodes, nearest HCA and hop counts.
#include "fabric/topology.hpp"

#include <algorithm>

#include "fabric/ib_port.hpp"
#include "fabric/pcie_affinity.hpp"
#include "fabric/pcie_link.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

std::vector<std::string> pcie_path(const fs::path& sysfs_root, const std::string& bdf) {
  std::error_code error;
  fs::path real = fs::canonical(sysfs_root / "sys/bus/pci/devices" / bdf, error);
  std::vector<std::string> path;
  if (error) return path;
  std::string root_complex;
  for (const auto& part : real) {
    std::string name = part.string();
    if (name.rfind("pci", 0) == 0 && name.size() > 3) {
      path.clear();
      root_complex = name;  // "pci0000:16": the components below it are bridges and the device
      path.push_back(name);
    } else if (!root_complex.empty()) {
      path.push_back(name);
    }
  }
  return path;
}

int pcie_hops(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty() || a.front() != b.front()) return -1;
  auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<int>((a.end() - ia) + (b.end() - ib));
}

std::vector<GpuPlacement> gpu_placements(const fs::path& sysfs_root) {
  struct Hca {
    std::string name, bdf;
    std::vector<std::string> path;
  };
  std::vector<Hca> hcas;
  for (const auto& port : read_ib_ports(sysfs_root)) {
    if (port.pci_bdf.empty()) continue;
    if (std::any_of(hcas.begin(), hcas.end(),
                    [&](const Hca& h) { return h.name == port.device; })) {
      continue;
    }
    hcas.push_back({port.device, port.pci_bdf, pcie_path(sysfs_root, port.pci_bdf)});
  }
  std::vector<GpuPlacement> placements;
  for (const auto& link : read_pcie_links(sysfs_root)) {
    if (link.kind != PcieDeviceKind::gpu) continue;
    GpuPlacement p;
    p.gpu_bdf = link.bdf;
    p.gpu_numa = pci_numa_node(sysfs_root, link.bdf);
    p.path = pcie_path(sysfs_root, link.bdf);
    int best = -1;
    for (const auto& hca : hcas) {
      int hops = pcie_hops(p.path, hca.path);
      bool better = p.hca.empty() || (hops >= 0 && (best < 0 || hops < best));
      if (better) {
        best = hops;
        p.hca = hca.name;
        p.hca_bdf = hca.bdf;
      }
    }
    p.hops = best;
    if (!p.hca_bdf.empty()) p.hca_numa = pci_numa_node(sysfs_root, p.hca_bdf);
    placements.push_back(std::move(p));
  }
  return placements;
}

}  // namespace fabcheck
