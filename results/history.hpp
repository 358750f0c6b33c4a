// The fleet history: figures of many runs over time in one HDF5 file, appended run by run, read
// back for `fabcheck compare` (layout in results/schema/README.md, readable by h5py).
#pragma once

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>

#include "results/fleet_store.hpp"

namespace fabcheck {

inline constexpr const char* kHistoryKind = "fabcheck-history";

// True when this build has HDF5 (without it, the functions below throw ConfigError saying so).
bool history_available();

// Appends every run of `store` and its ok, finite figures. Creates the file when it does not
// exist. Throws ConfigError when the file exists and is not a fabcheck history (or not a regular
// file), std::runtime_error when HDF5 fails.
void append_history(const std::filesystem::path& file, const FleetStore& store);

// Reads a history back: a RunInfo per run (dir, started_utc, verdict, profile name) in the order
// appended, and its figures, keeping only `hosts` when given and, of each host, only its last
// `last_runs` runs (the runs with a figure of it; 0: all); a run no kept host needs is left out.
// Reads the figures in bounded chunks.
FleetStore read_history(const std::filesystem::path& file, const std::set<std::string>* hosts,
                        std::size_t last_runs);

}  // namespace fabcheck
