// A planning world: the job as the launcher describes it, for applicability checks before
// anything runs.
#pragma once

#include <memory>

#include "bench/core/probe.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {

// A World describing `job` for applicability checks before anything runs (requirements, hosts);
// its collectives throw std::logic_error (nothing runs in it).
std::unique_ptr<World> make_planning_world(const JobShape& job);

}  // namespace fabcheck
