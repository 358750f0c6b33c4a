// Factories of the fabric probes (each defined in its own *_probe.cpp); register.cpp adds them.
#pragma once

#include <memory>

#include "bench/core/counter_monitor.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_pcie_links_probe();
std::unique_ptr<Probe> make_ib_ports_probe();
std::unique_ptr<Probe> make_ib_counters_probe();
std::unique_ptr<Probe> make_topology_probe();
std::unique_ptr<Probe> make_nccl_transport_probe();
std::unique_ptr<Probe> make_rdma_bw_probe();
std::unique_ptr<Probe> make_rdma_lat_probe();
std::unique_ptr<Probe> make_node_pairs_probe();

// IB/RoCE port error and congestion counters, read around every heavy probe.
CounterMonitor make_ib_counter_monitor();

}  // namespace fabcheck
