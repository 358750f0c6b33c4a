// Early checks of --storage-path values, so the CLI exits 2 before anything is written: the path
// exists, is a directory, is writable, and has room for what the storage probes plan to write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

// Throws ConfigError("--storage-path: ...") naming the path and the value at fault: missing, not a
// directory, on a read-only mount or not writable by this user, or fewer free bytes (for this
// user, statvfs f_bavail) than `planned_bytes`.
void validate_storage_paths(const std::vector<std::string>& paths, std::uint64_t planned_bytes);

// The most any one storage probe in `probe_ids` has on disk at a time under one path (probes run
// one after another and each removes its files): local patterns one file (one rank per host runs
// them), checkpoint patterns one file per rank of the world. Reads the storage.* options
// (ConfigError on bad ones). Ids that are not storage probes count 0.
std::uint64_t planned_storage_bytes(const RunOptions& options,
                                    const std::vector<std::string>& probe_ids, int world_size);

}  // namespace fabcheck
