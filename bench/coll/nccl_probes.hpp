// The NCCL-only probes (coll.nic_loopback); the six coll.* probes are in coll_probes.hpp.
#pragma once

#include "bench/core/registry.hpp"

namespace fabcheck {

void register_nccl_probes(Registry& registry);

}  // namespace fabcheck
