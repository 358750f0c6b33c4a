// PCI device locality (NUMA node, nearby CPUs) as hwloc sees the live machine; optional at build
// time (FABCHECK_HAVE_HWLOC), reporting why when it is not available.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fabcheck {

struct PciLocality {
  int numa_node = -1;    // OS index of the first NUMA node near the device, -1 when none
  std::string cpus;      // "0-47"
  std::string ancestor;  // the non-I/O object it hangs from, e.g. "Package:0"
};

struct HwlocLocality {
  bool available = false;
  std::string problem;  // "built without hwloc", "hwloc_topology_load failed"
  std::map<std::string, PciLocality> by_bdf;
};

HwlocLocality hwloc_pci_locality(const std::vector<std::string>& bdfs);

}  // namespace fabcheck
