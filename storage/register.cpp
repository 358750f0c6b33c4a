// Registers the storage probes listed in probes.def, in that order.
#include "storage/register.hpp"

namespace fabcheck {

#define FABCHECK_PROBE(factory) std::unique_ptr<Probe> factory();
#include "storage/probes.def"
#undef FABCHECK_PROBE

void register_storage_probes(Registry& registry) {
#define FABCHECK_PROBE(factory) registry.add(factory());
#include "storage/probes.def"
#undef FABCHECK_PROBE
}

}  // namespace fabcheck
