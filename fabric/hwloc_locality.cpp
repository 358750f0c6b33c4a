// PCI device locality (NUMA node, nearby CPUs) as hwloc sees the live machine, when built with it.
#include "fabric/hwloc_locality.hpp"

#if defined(FABCHECK_HAVE_HWLOC)
#include <hwloc.h>

#include <cstdlib>
#endif

namespace fabcheck {

#if defined(FABCHECK_HAVE_HWLOC)

HwlocLocality hwloc_pci_locality(const std::vector<std::string>& bdfs) {
  HwlocLocality result;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) {
    result.problem = "hwloc_topology_init failed";
    return result;
  }
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    result.problem = "hwloc_topology_load failed";
    return result;
  }
  result.available = true;
  for (const auto& bdf : bdfs) {
    hwloc_obj_t device = hwloc_get_pcidev_by_busidstring(topology, bdf.c_str());
    if (device == nullptr) continue;
    hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topology, device);
    if (ancestor == nullptr) continue;
    PciLocality locality;
    if (ancestor->nodeset != nullptr) locality.numa_node = hwloc_bitmap_first(ancestor->nodeset);
    if (ancestor->cpuset != nullptr) {
      char* text = nullptr;
      if (hwloc_bitmap_list_asprintf(&text, ancestor->cpuset) >= 0 && text != nullptr) {
        locality.cpus = text;
        std::free(text);
      }
    }
    locality.ancestor = std::string(hwloc_obj_type_string(ancestor->type)) + ":" +
                        std::to_string(ancestor->logical_index);
    result.by_bdf[bdf] = locality;
  }
  hwloc_topology_destroy(topology);
  return result;
}

#else

HwlocLocality hwloc_pci_locality(const std::vector<std::string>&) {
  HwlocLocality result;
  result.problem = "built without hwloc";
  return result;
}

#endif

}  // namespace fabcheck
