// The command line of `fabcheck evaluate`: options and the command (results/fleet_evaluation.hpp
// does the work).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/core/registry.hpp"
#include "results/fleet_evaluation.hpp"

namespace fabcheck {

struct EvaluateArgs {
  std::vector<std::string> dirs;
  std::string profile;  // "" = each run's own
  std::string out;
  std::string history;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool all = false;
};

CLI::App* add_evaluate_command(CLI::App& app, EvaluateArgs& args);

// What `fabcheck evaluate` runs (tests and benchmarks call it too): the run directories under
// `dirs`, each re-judged against `profile` (or, when empty, its own) by the evaluator and the
// registry's judges, then the fleet's peers. Throws ConfigError for bad input.
FleetEvaluation evaluate_runs(const std::vector<std::string>& dirs, const std::string& profile,
                              const Registry& registry, unsigned threads);

// Exit code: the fleet's verdict (0 pass or warn, 1 a FAIL, 3 incomplete), 2 for bad input.
int evaluate_command(const EvaluateArgs& args, const Registry& registry, std::FILE* out);

}  // namespace fabcheck
