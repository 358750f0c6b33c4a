// The registry of every probe family (register_all_probes), built once, for the tests and
// benchmarks that evaluate synthetic sweeps and stored runs as `fabcheck` itself would.
#pragma once

#include "bench/cli/probe_families.hpp"

namespace fabcheck::synthetic {

inline const Registry& every_probe_registry() {
  static const Registry instance = [] {
    Registry registry;
    register_all_probes(registry);
    return registry;
  }();
  return instance;
}

}  // namespace fabcheck::synthetic
