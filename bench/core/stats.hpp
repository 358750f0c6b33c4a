// Sample statistics (min, median, max, p99, mean, cv) over timing or rate samples.
#pragma once

#include <vector>

#include "results/measurement.hpp"

namespace fabcheck {

// Percentile by linear interpolation between closest ranks (numpy's default, "type 7"):
// position p/100 * (n-1) in the sorted samples. `sorted` must be ascending and non-empty.
double percentile_sorted(const std::vector<double>& sorted, double p);

// Statistics of the samples (any order). An empty input gives count 0 and zeros. cv is the
// population standard deviation over the mean (0 when the mean is 0).
SampleStats compute_stats(std::vector<double> samples);

}  // namespace fabcheck
