// How long a storage probe is assumed to take on each --storage-path, for plans and budgets.
#pragma once

#include <string>

#include "bench/core/probe.hpp"

namespace fabcheck {

// Estimates (ProbeInfo::estimate) of the storage probes: a rate and a cost per path assumed, not
// measured. 0.2 GB/s is a slow SATA drive or a busy network file system (a two-core VM's ext4
// measured 0.46-0.59 GB/s); the second per path pays for describing the target and the scratch.
constexpr double kAssumedStorageGBps = 0.2;
constexpr double kAssumedStoragePathSetup_s = 1.0;
// "2 s", "0.5 s": a duration in a plan's knobs.
std::string number_seconds(double seconds);
// Seconds to move `bytes` at the assumed rate.
double assumed_storage_seconds(double bytes);
// `per_path` seconds on each --storage-path (they run one after another) plus the set-up of each.
ProbeEstimate storage_estimate(const RunOptions& options, double per_path_s, std::string knobs);

}  // namespace fabcheck
