// PCI device locality (NUMA node, nearby CPUs, place in the PCIe tree, OS device names) as hwloc
// sees the live machine or a saved hwloc XML topology; optional at build time
// (FABCHECK_HAVE_HWLOC), reporting why when it is not available.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fabcheck {

struct PciLocality {
  int numa_node = -1;  // OS index of the first NUMA node near the device, -1 when none
  std::string cpus;    // "0-47"
};

struct HwlocLocality {
  bool available = false;
  std::string problem;  // "built without hwloc", "hwloc_topology_load failed"
  std::map<std::string, PciLocality> by_bdf;
};

HwlocLocality hwloc_pci_locality(const std::vector<std::string>& bdfs);

// A PCI device hwloc keeps (GPUs, NICs, NVMe and the bridges to them).
struct HwlocPciDevice {
  std::string bdf;  // "0000:18:00.0"
  unsigned vendor = 0;
  unsigned device_class = 0;  // 0x0302 (3D controller), 0x0207 (InfiniBand), 0x0200 (Ethernet)
  int numa_node = -1;
  std::vector<int> cpus;
  std::vector<std::string> rdma_devices;  // its OpenFabrics OS devices: "mlx5_0"
  std::vector<std::uint64_t> path;        // hwloc objects from the machine down to it

  bool is_nvidia_gpu() const {
    return vendor == 0x10de && (device_class == 0x0302 || device_class == 0x0300);
  }
};

struct HwlocMachine {
  bool available = false;
  std::string problem;
  std::string source;                         // "this machine" or the XML file
  std::map<int, std::vector<int>> numa_cpus;  // NUMA node -> its CPUs
  std::vector<HwlocPciDevice> pci;            // in hwloc's order (by bus id)
};

// The live machine (`xml_file` empty) or an hwloc XML export (lstopo --of xml).
HwlocMachine read_hwloc_machine(const std::string& xml_file = "");

// Objects two devices share from the top of the tree: more is nearer (same PCIe switch beats the
// same root port beats the same socket).
std::size_t shared_path(const HwlocPciDevice& a, const HwlocPciDevice& b);

}  // namespace fabcheck
