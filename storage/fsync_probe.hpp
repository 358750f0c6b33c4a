// storage.fsync_lat: how long a small write takes to become durable (buffered write + fsync, the
// shape of a checkpoint's metadata commit or a log append), as latency percentiles.
#pragma once

#include <cstdint>

namespace fabcheck {

// The probe rewrites a region of this many storage.fsync_block blocks, so its footprint stays small
// however many fsyncs the duration allows.
inline constexpr std::uint64_t kFsyncBlocks = 256;

}  // namespace fabcheck
