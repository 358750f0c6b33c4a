// Plan: a named use (gate: under a minute before a job; acceptance: full sweeps on new nodes;
// sweep: the nightly fleet sweep across nodes; quick: a smoke test) with the sizes, iterations
// and time limits that suit it. Its probes are those that declare it (ProbeInfo::plans), in stage
// order (Registry::plan_probes).
#pragma once

#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct Plan {
  std::string name;
  std::string purpose;
  RunOptions options;  // defaults; command-line options override them
};

// The built-in plans (gate, acceptance, sweep, quick).
const std::vector<Plan>& builtin_plans();
// Throws ConfigError naming the plan and the known ones.
const Plan& find_plan(const std::string& name);

}  // namespace fabcheck
