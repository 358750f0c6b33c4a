// Registers the fabric probes (PCIe links, IB ports and counters, NCCL transport proof, RDMA
// tests, node pairs) and their judges.
#include "fabric/register.hpp"

#include "fabric/fabric_profile.hpp"
#include "fabric/nccl_transport_judge.hpp"
#include "fabric/node_pairs.hpp"
#include "fabric/probes.hpp"

namespace fabcheck {

void register_fabric_probes(Registry& registry) {
  registry.add(make_pcie_links_probe());
  registry.add(make_ib_ports_probe());
  registry.add(make_ib_counters_probe());
  registry.add(make_topology_probe());
  registry.add(make_nccl_transport_probe());
  registry.add(make_rdma_bw_probe());
  registry.add(make_rdma_lat_probe());
  registry.add(make_node_pairs_probe());
  registry.add_judge(make_fabric_judge());
  registry.add_judge(make_node_pairs_judge());
  registry.add_counter_monitor(make_ib_counter_monitor());
  registry.add_judge(make_nccl_transport_judge());
}

}  // namespace fabcheck
