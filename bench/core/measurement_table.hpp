// The console table of a probe's measurements, for probes that print none of their own.
#pragma once

#include <string>
#include <vector>

#include "results/measurement.hpp"

namespace fabcheck {

// One row per measurement: subject, metric, size, value and unit, median and p99 when there are
// samples, host (rank); waived and failed records show their message instead of a value.
// Headed by the probe's id.
std::string measurement_table(const std::string& probe_id,
                              const std::vector<Measurement>& measurements);

}  // namespace fabcheck
