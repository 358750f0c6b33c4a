// The storage probes' estimates: an assumed rate and a set-up cost per path.
#include "storage/storage_estimate.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace fabcheck {

std::string number_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

double assumed_storage_seconds(double bytes) { return bytes / (kAssumedStorageGBps * 1e9); }

ProbeEstimate storage_estimate(const RunOptions& options, double per_path_s, std::string knobs) {
  const double paths = static_cast<double>(std::max<std::size_t>(1, options.storage_paths.size()));
  return {paths * (kAssumedStoragePathSetup_s + per_path_s), std::move(knobs)};
}

}  // namespace fabcheck
