// Registers the node.* and host.* probes: what the benchmarks do not see (pre-flight, kernel log,
// CPU, NUMA binding, memory bandwidth), with their judges.
#pragma once

#include "bench/core/registry.hpp"

namespace fabcheck {

void register_host_probes(Registry& registry);

}  // namespace fabcheck
