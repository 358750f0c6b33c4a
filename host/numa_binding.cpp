// NUMA placement of ranks against their GPUs and NICs: readings, measurements, judgement, fix.
#include "host/numa_binding.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench/sys/cpu_list.hpp"
#include "bench/sys/gpu_assignment.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

int node_of_cpu(const HwlocMachine& machine, int cpu) {
  for (const auto& [node, cpus] : machine.numa_cpus) {
    if (std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) return node;
  }
  return -1;
}

const char* policy_name(int mode) {
  switch (mode) {
    case 0:
      return "default";
    case 1:
      return "preferred";
    case 2:
      return "bind";
    case 3:
      return "interleave";
    case 4:
      return "local";
    case 5:
      return "preferred_many";
    case 6:
      return "weighted_interleave";
    default:
      return "unknown";
  }
}

}  // namespace

RankPlacement this_rank_placement(int local_rank, int local_size) {
  RankPlacement placement;
  placement.local_rank = local_rank;
  placement.local_size = local_size;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) placement.cpus.push_back(cpu);
    }
  }
  int mode = 0;
  unsigned long mask[16] = {};
  const unsigned long max_node = sizeof mask * 8;
  if (syscall(SYS_get_mempolicy, &mode, mask, max_node, nullptr, 0UL) == 0) {
    placement.mempolicy = policy_name(mode & 0xff);  // the high bits are flags
    for (unsigned long node = 0; node < max_node; ++node) {
      if ((mask[node / (8 * sizeof(unsigned long))] >> (node % (8 * sizeof(unsigned long)))) & 1UL)
        placement.mem_nodes.push_back(static_cast<int>(node));
    }
    if (placement.mempolicy == "default" || placement.mempolicy == "local")
      placement.mem_nodes.clear();
  }
  return placement;
}

std::vector<HwlocPciDevice> gpus_of_rank(const HwlocMachine& machine,
                                         const std::string& cuda_visible_devices, int local_rank,
                                         int local_size) {
  std::vector<HwlocPciDevice> all;
  for (const auto& device : machine.pci) {
    if (device.is_nvidia_gpu()) all.push_back(device);
  }
  std::vector<HwlocPciDevice> visible;
  const auto entries = parse_visible_devices(cuda_visible_devices);
  if (entries.empty()) {
    visible = all;
  } else {
    for (const auto& entry : entries) {
      const auto index = text::parse_small_int(entry);
      if (!index) return {};  // UUIDs and MIG names cannot be placed without NVML
      if (static_cast<std::size_t>(*index) < all.size()) visible.push_back(all[*index]);
    }
  }
  std::vector<HwlocPciDevice> mine;
  for (int ordinal : devices_for_rank(local_rank, local_size, static_cast<int>(visible.size())))
    mine.push_back(visible[static_cast<std::size_t>(ordinal)]);
  return mine;
}

const HwlocPciDevice* nearest_rdma_nic(const HwlocMachine& machine, const HwlocPciDevice& gpu) {
  const HwlocPciDevice* best = nullptr;
  std::size_t best_shared = 0;
  for (const auto& device : machine.pci) {
    if (device.rdma_devices.empty()) continue;
    const std::size_t shared = shared_path(gpu, device);
    if (best == nullptr || shared > best_shared) {
      best = &device;
      best_shared = shared;
    }
  }
  return best;
}

std::vector<Measurement> numa_measurements(const HwlocMachine& machine,
                                           const RankPlacement& placement,
                                           const std::string& cuda_visible_devices) {
  std::vector<Measurement> out;
  std::set<int> cpu_nodes;
  for (int cpu : placement.cpus) {
    const int node = node_of_cpu(machine, cpu);
    if (node >= 0) cpu_nodes.insert(node);
  }
  const std::vector<int> cpu_node_list(cpu_nodes.begin(), cpu_nodes.end());
  auto describe = [&](Measurement& m) {
    m.params["cpus"] = format_cpu_list(placement.cpus);
    m.params["cpu_numa_nodes"] = format_cpu_list(cpu_node_list);
    m.params["mempolicy"] = placement.mempolicy;
    if (!placement.mem_nodes.empty()) m.params["mem_nodes"] = format_cpu_list(placement.mem_nodes);
    m.params["local_rank"] = std::to_string(placement.local_rank);
    m.params["local_size"] = std::to_string(placement.local_size);
    m.params["numa_nodes"] = std::to_string(machine.numa_cpus.size());
    m.params["topology"] = machine.source;
  };
  Measurement bound = make_measurement(kHostNumaProbe, "bound_cpus",
                                       static_cast<double>(placement.cpus.size()), "count", "rank");
  describe(bound);
  out.push_back(bound);

  const auto gpus =
      gpus_of_rank(machine, cuda_visible_devices, placement.local_rank, placement.local_size);
  if (gpus.empty()) {
    Measurement none = make_measurement(kHostNumaProbe, "cpus_off_gpu_numa", 0, "fraction", "rank");
    none.status = MeasurementStatus::waived;
    const bool any_gpu = std::any_of(machine.pci.begin(), machine.pci.end(),
                                     [](const HwlocPciDevice& d) { return d.is_nvidia_gpu(); });
    none.message = !any_gpu ? "no NVIDIA GPU in the topology of " + machine.source
                            : "CUDA_VISIBLE_DEVICES names GPUs by UUID: their place is unknown "
                              "without NVML";
    out.push_back(std::move(none));
    return out;
  }
  std::set<int> gpu_nodes;
  std::string gpu_list, nic_list, nic_nodes;
  for (const auto& gpu : gpus) {
    if (gpu.numa_node >= 0) gpu_nodes.insert(gpu.numa_node);
    gpu_list += (gpu_list.empty() ? "" : ",") + gpu.bdf;
    if (const HwlocPciDevice* nic = nearest_rdma_nic(machine, gpu)) {
      nic_list += (nic_list.empty() ? "" : ",") + nic->rdma_devices.front() + " (" + nic->bdf + ")";
      nic_nodes += (nic_nodes.empty() ? "" : ",") + std::to_string(nic->numa_node);
    }
  }
  const std::string subject = gpus.size() == 1 ? gpus.front().bdf : "gpus";
  const std::vector<int> gpu_node_list(gpu_nodes.begin(), gpu_nodes.end());
  auto place = [&](Measurement& m) {
    describe(m);
    m.params["gpus"] = gpu_list;
    m.params["gpu_numa"] = format_cpu_list(gpu_node_list);
    if (!nic_list.empty()) {
      m.params["nic"] = nic_list;
      m.params["nic_numa"] = nic_nodes;
    }
  };
  std::size_t off = 0;
  for (int cpu : placement.cpus) {
    if (gpu_nodes.count(node_of_cpu(machine, cpu)) == 0) ++off;
  }
  Measurement cpus =
      make_measurement(kHostNumaProbe, "cpus_off_gpu_numa",
                       placement.cpus.empty() || gpu_nodes.empty()
                           ? 0
                           : static_cast<double>(off) / static_cast<double>(placement.cpus.size()),
                       "fraction", subject);
  place(cpus);
  out.push_back(std::move(cpus));
  bool memory_off = false;
  if (!placement.mem_nodes.empty() && !gpu_nodes.empty() &&
      (placement.mempolicy == "bind" || placement.mempolicy == "preferred" ||
       placement.mempolicy == "preferred_many")) {
    memory_off = std::none_of(placement.mem_nodes.begin(), placement.mem_nodes.end(),
                              [&](int node) { return gpu_nodes.count(node) > 0; });
  }
  Measurement memory = make_measurement(kHostNumaProbe, "memory_off_gpu_numa", memory_off ? 1 : 0,
                                        "fraction", subject);
  place(memory);
  out.push_back(std::move(memory));
  return out;
}

std::string binding_fix(const std::vector<int>& nodes) {
  std::string map;
  for (int node : nodes) map += (map.empty() ? "" : ",") + std::to_string(node);
  std::string fix = "srun --cpu-bind=map_ldom:" + map + " --mem-bind=map_ldom:" + map;
  // Open MPI maps ranks to NUMA nodes in order: enough when each node takes one block of equal
  // size, in increasing order.
  bool blocks = !nodes.empty() && std::is_sorted(nodes.begin(), nodes.end());
  std::map<int, int> per_node;
  for (int node : nodes) ++per_node[node];
  for (const auto& [node, count] : per_node) blocks = blocks && count == per_node.begin()->second;
  if (blocks && per_node.begin()->first == 0) {
    fix += "; or mpirun --map-by ppr:" + std::to_string(per_node.begin()->second) +
           ":numa --bind-to numa";
  } else {
    fix += "; or with mpirun, numactl --cpunodebind=N --membind=N with N taken from (" + map +
           ")[$OMPI_COMM_WORLD_LOCAL_RANK]";
  }
  return fix;
}

std::vector<Finding> judge_numa(const std::vector<Measurement>& measurements) {
  // Per host: each local rank's GPU node, for the fix.
  std::map<std::string, std::map<int, int>> node_of_local_rank;
  for (const Measurement& m : measurements) {
    if (m.probe != kHostNumaProbe || m.metric != "cpus_off_gpu_numa" ||
        m.status != MeasurementStatus::ok)
      continue;
    const auto nodes = parse_cpu_list(param_of(m, "gpu_numa")).value_or(std::vector<int>{});
    if (nodes.size() == 1)
      node_of_local_rank[m.host][std::atoi(param_of(m, "local_rank").c_str())] = nodes.front();
  }
  auto fix_for = [&](const Measurement& m) {
    std::vector<int> nodes;
    for (const auto& [rank, node] : node_of_local_rank[m.host]) nodes.push_back(node);
    return nodes.empty() ? std::string() : binding_fix(nodes);
  };
  std::vector<Finding> out;
  std::set<std::string> nic_noted;
  for (const Measurement& m : measurements) {
    if (m.probe != kHostNumaProbe || m.status != MeasurementStatus::ok) continue;
    const std::string who =
        "rank " + std::to_string(m.rank) + (m.host.empty() ? "" : " on " + m.host);
    const std::string gpu =
        "GPU " + param_of(m, "gpus") + " (NUMA " + param_of(m, "gpu_numa") + ")";
    if (m.metric == "cpus_off_gpu_numa" && m.value > 0) {
      const bool all = m.value >= 1;
      Finding f = finding_about(m, all ? Severity::fail : Severity::warn);
      f.expected = 0;
      f.message = all ? who + " runs on CPUs " + param_of(m, "cpus") + " (NUMA " +
                            param_of(m, "cpu_numa_nodes") + ") but drives " + gpu +
                            ": every host-device copy and NCCL's proxy thread cross the socket link"
                      : who + " is not bound to the NUMA node of its " + gpu +
                            ": it may run on CPUs " + param_of(m, "cpus") + " (NUMA " +
                            param_of(m, "cpu_numa_nodes") + ")";
      f.evidence = "affinity " + param_of(m, "cpus") + ", memory policy " +
                   param_of(m, "mempolicy") + ", nearest NIC " + param_of(m, "nic") + " (NUMA " +
                   param_of(m, "nic_numa") + "), topology " + param_of(m, "topology");
      f.remedy = "bind each rank to its GPU's NUMA node: " + fix_for(m);
      out.push_back(std::move(f));
    } else if (m.metric == "memory_off_gpu_numa" && m.value > 0) {
      Finding f = finding_about(m, Severity::fail);
      f.expected = 0;
      f.message = who + "'s memory policy is " + param_of(m, "mempolicy") + " to NUMA " +
                  param_of(m, "mem_nodes") + " while its " + gpu + " is elsewhere";
      f.remedy = "bind memory with the CPUs to the GPU's node: " + fix_for(m);
      out.push_back(std::move(f));
    }
    if (m.metric == "cpus_off_gpu_numa" && !param_of(m, "nic_numa").empty() &&
        param_of(m, "nic_numa") != param_of(m, "gpu_numa") &&
        nic_noted.insert(m.host + " " + param_of(m, "gpus")).second) {
      Finding f = finding_about(m, Severity::warn);
      f.observed.reset();
      f.message = gpu + " and its nearest RDMA NIC " + param_of(m, "nic") + " (NUMA " +
                  param_of(m, "nic_numa") +
                  ") sit on different NUMA nodes: GPUDirect RDMA "
                  "crosses the socket link";
      f.remedy =
          "check the server's PCIe layout (lstopo): NCCL then picks a NIC through the "
          "CPU interconnect; set NCCL_IB_HCA or move the NIC to the GPU's switch";
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace fabcheck
