// Registers the fabric probes (PCIe links, IB ports and counters, NCCL transport proof, RDMA
// tests).
#pragma once

#include "bench/core/registry.hpp"

namespace fabcheck {

// fabric.pcie_links, fabric.ib_ports, fabric.ib_counters, fabric.topology, fabric.nccl_transport,
// fabric.rdma_bw, fabric.rdma_lat. Put fabric.ib_counters after the heavy probes in a plan: it
// judges the growth of the error counters since fabric.ib_ports read them.
void register_fabric_probes(Registry& registry);

}  // namespace fabcheck
