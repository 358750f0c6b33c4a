// Reading run directories into a FleetStore: which directories are runs (a directory of runs
// counts as all of them), and each run's summary, measurements and the errors it recorded.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/fleet_store.hpp"

namespace fabcheck {

// The run directories under each of `dirs`: a directory holding measurements.jsonl or
// summary.json is a run; any other directory stands for the runs below it (to `max_depth` levels),
// in name order. Throws ConfigError for a path that is missing or not a directory (a FIFO, a
// device, a file), or under which no run is found.
std::vector<std::filesystem::path> find_run_dirs(const std::vector<std::string>& dirs,
                                                 int max_depth = 4);

// A run's summary.json as JSON: a regular file of at most 16 MiB, parsed, `"kind": "summary"`.
// Throws ConfigError naming the file otherwise.
nlohmann::json read_summary_json(const std::filesystem::path& file);

// Reads one run directory into `store`: a RunInfo (from summary.json, whose absence or verdict
// "incomplete" marks the run incomplete) and a row per record of measurements.jsonl (streamed:
// memory grows with the rows kept, not with the file). The run's ERROR findings and the reasons it
// is incomplete become RunInfo::carried, so a re-judged run never comes out better than it ended.
// Throws ConfigError naming file and line for a file that is not regular or a malformed record; a
// last line the writer did not finish is skipped and marks the run incomplete.
void read_run_dir(const std::filesystem::path& dir, FleetStore& store);

}  // namespace fabcheck
