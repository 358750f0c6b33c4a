// The command lines of `fabcheck baseline` (a profile from known-good runs) and `fabcheck compare`
// (a run against an earlier run or a fleet history).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"

namespace fabcheck {

struct BaselineArgs {
  std::vector<std::string> dirs;
  std::string out;
  std::string name;
  double pass_fraction = 0.05;
  double fail_fraction = 0.10;
};

struct CompareArgs {
  std::vector<std::string> dirs;
  std::string against;  // a run directory (or a directory of them), or a history .h5
  double tolerance = 0.10;
  std::size_t last = 7;  // history runs of each host to compare with
  bool all = false;
};

CLI::App* add_baseline_command(CLI::App& app, BaselineArgs& args);
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);

// Writes the profile (never over an existing file); 0, or 2 for bad input.
int baseline_command(const BaselineArgs& args, const Registry& registry, std::FILE* out);
// 0 nothing fell beyond the tolerance (or only WARNs), 1 a FAIL, 2 bad input.
int compare_command(const CompareArgs& args, const Registry& registry, std::FILE* out);

}  // namespace fabcheck
