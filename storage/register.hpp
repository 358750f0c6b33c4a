// Registers the storage probes (storage.*) with the CLI's registry.
#pragma once

#include "bench/core/registry.hpp"

namespace fabcheck {

void register_storage_probes(Registry& registry);

}  // namespace fabcheck
