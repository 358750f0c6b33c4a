// PCI device locality as hwloc sees the live machine or an XML export, when built with hwloc.
#include "bench/sys/hwloc_locality.hpp"

#include <algorithm>

#include "bench/sys/cpu_list.hpp"

#if defined(FABCHECK_HAVE_HWLOC)
#include <hwloc.h>

#include <cstdlib>
#endif

namespace fabcheck {

std::size_t shared_path(const HwlocPciDevice& a, const HwlocPciDevice& b) {
  std::size_t shared = 0;
  while (shared < a.path.size() && shared < b.path.size() && a.path[shared] == b.path[shared])
    ++shared;
  return shared;
}

HwlocLocality hwloc_pci_locality(const std::vector<std::string>& bdfs) {
  HwlocLocality result;
  const HwlocMachine machine = read_hwloc_machine();
  result.available = machine.available;
  result.problem = machine.problem;
  for (const auto& bdf : bdfs) {
    const auto found = std::find_if(machine.pci.begin(), machine.pci.end(),
                                    [&](const HwlocPciDevice& d) { return d.bdf == bdf; });
    if (found == machine.pci.end()) continue;
    PciLocality locality;
    locality.numa_node = found->numa_node;
    locality.cpus = format_cpu_list(found->cpus);
    result.by_bdf[bdf] = locality;
  }
  return result;
}

#if defined(FABCHECK_HAVE_HWLOC)

namespace {

std::vector<int> bitmap_list(hwloc_const_bitmap_t bitmap) {
  std::vector<int> out;
  if (bitmap == nullptr) return out;
  for (int index = hwloc_bitmap_first(bitmap); index >= 0;
       index = hwloc_bitmap_next(bitmap, index)) {
    out.push_back(index);
  }
  return out;
}

std::string bus_id(hwloc_obj_t device) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%01x", device->attr->pcidev.domain,
                device->attr->pcidev.bus, device->attr->pcidev.dev, device->attr->pcidev.func);
  return text;
}

}  // namespace

HwlocMachine read_hwloc_machine(const std::string& xml_file) {
  HwlocMachine machine;
  machine.source = xml_file.empty() ? "this machine" : xml_file;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) {
    machine.problem = "hwloc_topology_init failed";
    return machine;
  }
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (!xml_file.empty() && hwloc_topology_set_xml(topology, xml_file.c_str()) != 0) {
    hwloc_topology_destroy(topology);
    machine.problem = "hwloc cannot read the XML topology " + xml_file;
    return machine;
  }
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    machine.problem = "hwloc_topology_load failed" + (xml_file.empty() ? "" : " for " + xml_file);
    return machine;
  }
  machine.available = true;
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr);
       node != nullptr; node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)) {
    machine.numa_cpus[static_cast<int>(node->os_index)] = bitmap_list(node->cpuset);
  }
  for (hwloc_obj_t device = hwloc_get_next_pcidev(topology, nullptr); device != nullptr;
       device = hwloc_get_next_pcidev(topology, device)) {
    HwlocPciDevice pci;
    pci.bdf = bus_id(device);
    pci.vendor = device->attr->pcidev.vendor_id;
    pci.device_class = device->attr->pcidev.class_id;
    if (hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topology, device)) {
      if (ancestor->nodeset != nullptr && !hwloc_bitmap_iszero(ancestor->nodeset))
        pci.numa_node = hwloc_bitmap_first(ancestor->nodeset);
      pci.cpus = bitmap_list(ancestor->cpuset);
    }
    for (hwloc_obj_t up = device; up != nullptr; up = up->parent) pci.path.push_back(up->gp_index);
    std::reverse(pci.path.begin(), pci.path.end());
    for (hwloc_obj_t child = device->io_first_child; child != nullptr;
         child = child->next_sibling) {
      if (child->type == HWLOC_OBJ_OS_DEVICE && child->name != nullptr &&
          child->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
        pci.rdma_devices.emplace_back(child->name);
      }
    }
    machine.pci.push_back(std::move(pci));
  }
  hwloc_topology_destroy(topology);
  return machine;
}

#else

HwlocMachine read_hwloc_machine(const std::string& xml_file) {
  HwlocMachine machine;
  machine.source = xml_file.empty() ? "this machine" : xml_file;
  machine.problem = "built without hwloc";
  return machine;
}

#endif

}  // namespace fabcheck
