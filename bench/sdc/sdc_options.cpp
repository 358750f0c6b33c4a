// The SDC screens' shared estimate.
#include "bench/sdc/sdc_options.hpp"

#include <cstdio>

namespace fabcheck::sdc {

ProbeEstimate estimate_passes(const RunOptions& options, const char* where) {
  const double seconds = option_number(options, kDurationSeconds);
  const auto passes = option_integer(options, kRepeats);
  char knobs[80];
  std::snprintf(knobs, sizeof knobs, "%lld pass(es) of %g s on every %s",
                static_cast<long long>(passes), seconds, where);
  return {1 + seconds * static_cast<double>(passes), knobs};
}

}  // namespace fabcheck::sdc
