// Early checks of --storage-path values, so the CLI exits 2 before anything is written: the path
// exists, is a directory, is writable, and has room for what the storage probes plan to write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabcheck {

// Throws ConfigError("--storage-path: ...") naming the path and the value at fault: missing, not a
// directory, on a read-only mount or not writable by this user, or fewer free bytes (for this
// user, statvfs f_bavail) than `planned_bytes` (planned_storage_bytes of the probes to run).
void validate_storage_paths(const std::vector<std::string>& paths, std::uint64_t planned_bytes);

}  // namespace fabcheck
