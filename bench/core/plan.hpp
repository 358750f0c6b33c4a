// Plan: a named list of probes with the sizes, iterations and time limits that suit one use
// (gate: under a minute before a job; acceptance: full sweeps on new nodes; sweep: the nightly
// fleet sweep across nodes).
#pragma once

#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct Plan {
  std::string name;
  std::string purpose;
  std::string probes;  // comma-separated ids or families, resolved by Registry::select
  RunOptions options;  // defaults; command-line options override them
};

// The built-in plans (gate, acceptance, sweep, quick). Probes a plan names that this build lacks
// are left out when resolving (Registry::select with skip_unknown).
const std::vector<Plan>& builtin_plans();
// Throws ConfigError naming the plan and the known ones.
const Plan& find_plan(const std::string& name);

}  // namespace fabcheck
