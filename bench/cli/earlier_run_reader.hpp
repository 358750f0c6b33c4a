// --estimate-from RUN_DIR: an earlier run's records read for the plan's estimates.
#pragma once

#include <string>

#include "bench/core/earlier_run.hpp"

namespace fabcheck {

// The run in `dir`: its measurements.jsonl and, from summary.json, each probe's time. Throws
// ConfigError naming the file (and line) when either is missing, not a regular file or malformed:
// an estimate asked to come from a run must not quietly fall back to the assumed rates.
EarlierRun read_earlier_run(const std::string& dir);

}  // namespace fabcheck
