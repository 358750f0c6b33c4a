// host.numa: each rank's CPU binding and memory policy against the NUMA node of the GPU it drives
// and of that GPU's nearest RDMA NIC (hwloc, live or an XML export), with the mpirun / srun
// binding that would fix a wrong one.
#pragma once

#include <string>
#include <vector>

#include "bench/sys/hwloc_locality.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kHostNumaProbe = "host.numa";

struct RankPlacement {
  int local_rank = 0;
  int local_size = 1;
  std::vector<int> cpus;              // where it may run (sched_getaffinity)
  std::string mempolicy = "default";  // default, local, bind, preferred, interleave, ...
  std::vector<int> mem_nodes;         // the policy's nodes (empty for default/local)
};

// This process: affinity and get_mempolicy.
RankPlacement this_rank_placement(int local_rank, int local_size);

// The GPUs a rank drives: the machine's NVIDIA GPUs in bus order (CUDA's order with
// CUDA_DEVICE_ORDER=PCI_BUS_ID, and on nodes of one GPU model), those CUDA_VISIBLE_DEVICES leaves
// when it lists indices, then one per local rank (devices_for_rank).
std::vector<HwlocPciDevice> gpus_of_rank(const HwlocMachine& machine,
                                         const std::string& cuda_visible_devices, int local_rank,
                                         int local_size);

// The RDMA device (a PCI function with an OpenFabrics device) nearest `gpu` in the PCIe tree; null
// when the machine has none.
const HwlocPciDevice* nearest_rdma_nic(const HwlocMachine& machine, const HwlocPciDevice& gpu);

// host.numa measurements of one rank: bound_cpus always; cpus_off_gpu_numa (the share of its CPUs
// outside its GPUs' NUMA nodes, 0..1) and memory_off_gpu_numa (1 when its memory policy keeps it
// off them) when it drives a GPU, WAIVED with the reason otherwise. Params say what and where.
std::vector<Measurement> numa_measurements(const HwlocMachine& machine,
                                           const RankPlacement& placement,
                                           const std::string& cuda_visible_devices);

// FAIL for a rank entirely on another node than its GPU (CPUs or memory policy), WARN for a rank
// spread over nodes (unbound) and for a GPU whose nearest NIC sits on another node; each remedy
// gives the binding that fixes the host's ranks (srun --cpu-bind=map_ldom:..., mpirun --map-by).
std::vector<Finding> judge_numa(const std::vector<Measurement>& measurements);

// The binding flags for local ranks whose GPUs sit on `nodes` (in local rank order).
std::string binding_fix(const std::vector<int>& nodes);

}  // namespace fabcheck
