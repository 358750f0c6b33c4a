// EarlierRun: what an earlier run on this job measured (--estimate-from RUN_DIR), read once before
// the plan is made so that probes estimate their cost from measured times instead of assumed rates.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "results/measurement.hpp"

namespace fabcheck {

struct EarlierRun {
  std::filesystem::path dir;
  std::map<std::string, double> probe_seconds;  // summary.json's timing.probes, on its root
  std::vector<Measurement> measurements;        // measurements.jsonl
};

}  // namespace fabcheck
