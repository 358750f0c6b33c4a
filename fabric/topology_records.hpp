// fabric.topology's records: for each GPU placement, its nearest HCA's PCIe hops and whether they
// sit on different NUMA nodes, with hwloc's view of the GPU where the live machine has one.
#pragma once

#include <vector>

#include "bench/sys/hwloc_locality.hpp"
#include "fabric/topology.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kTopologyProbe = "fabric.topology";

// nearest_hca_hops (99 where GPU and HCA share no root complex) and numa_mismatch per GPU with an
// HCA; one waived nearest_hca_hops when there is no GPU. `hwloc` may be empty (a recorded tree).
std::vector<Measurement> topology_records(const std::vector<GpuPlacement>& placements,
                                          const HwlocLocality& hwloc);

}  // namespace fabcheck
