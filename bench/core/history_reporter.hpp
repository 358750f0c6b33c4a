// HistoryReporter (`--history FILE.h5` on run, gate, acceptance, sweep): when the run has finished,
// its figures are appended to the fleet history that `fabcheck compare` reads.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>

#include "bench/core/reporter.hpp"

namespace fabcheck {

// Checks `file` before anything runs: this build has HDF5, and the path is a regular file or
// absent in an existing folder. Throws ConfigError naming it.
void check_history_file(const std::filesystem::path& file);

// Reads the run directory back when the run has finished (not on the last words of an interrupted
// run: an incomplete run is no reference) and appends it; says so, or why not, on `console`.
std::unique_ptr<Reporter> make_history_reporter(std::filesystem::path file, std::FILE* console);

}  // namespace fabcheck
