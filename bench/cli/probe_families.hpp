// Registers every probe family this binary has: the one place that names them all.
#pragma once

#include "bench/core/registry.hpp"

namespace fabcheck {

void register_all_probes(Registry& registry);

}  // namespace fabcheck
