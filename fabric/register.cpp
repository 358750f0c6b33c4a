// Registers the fabric probes listed in probes.def (PCIe links, IB ports and counters, NCCL
// transport proof, RDMA tests), their judges and the IB counter monitor.
#include "fabric/register.hpp"

#include "bench/core/counter_monitor.hpp"
#include "fabric/fabric_profile.hpp"
#include "fabric/nccl_transport_judge.hpp"

namespace fabcheck {

#define FABCHECK_PROBE(factory) std::unique_ptr<Probe> factory();
#include "fabric/probes.def"
#undef FABCHECK_PROBE

// IB/RoCE port error and congestion counters, read around every heavy probe
// (ib_counters_probe.cpp).
CounterMonitor make_ib_counter_monitor();

void register_fabric_probes(Registry& registry) {
#define FABCHECK_PROBE(factory) registry.add(factory());
#include "fabric/probes.def"
#undef FABCHECK_PROBE
  registry.add_judge(make_fabric_judge());
  registry.add_counter_monitor(make_ib_counter_monitor());
  registry.add_judge(make_nccl_transport_judge());
}

}  // namespace fabcheck
