// What every storage probe's declaration shares: it needs a --storage-path, is heavy, runs at the
// storage stage of a plan and checks its options before the run.
#pragma once

#include <string>

#include "bench/core/probe.hpp"

namespace fabcheck {

// Met when at least one --storage-path is given ("no --storage-path given" otherwise).
Requirement storage_path_requirement();

// A storage probe's declaration completed with what every storage probe shares: it needs a
// --storage-path, loads the storage (heavy), and checks its options before the run (its own
// check_options, then the shared storage.* options').
ProbeInfo storage_probe_info(ProbeInfo info);

// "storage.seq_write" -> "seq_write", for file and directory names.
std::string probe_short_name(const std::string& probe_id);

}  // namespace fabcheck
