// Registers every probe family this binary has: the one place that names them all.
#include "bench/cli/probe_families.hpp"

#include "bench/coll/coll_probes.hpp"

namespace fabcheck {

void register_all_probes(Registry& registry) {
  register_collective_probes(registry);
}

}  // namespace fabcheck
