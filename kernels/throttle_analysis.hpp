// Throttling over time from a clock sample series: the fraction of samples each clock-event reason
// held, thermal and hardware slowdowns together, the clock at the end against the start, peak
// temperature and mean power; as gpu.gemm measurements, and the "hot GPU" judgement.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "kernels/clock_sampler.hpp"
#include "kernels/gpu_label.hpp"
#include "results/figure_ref.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

struct ThrottleSummary {
  std::size_t samples = 0;
  double duration_s = 0;
  std::map<std::string, double> reason_fraction;  // "thermal-sw" -> 0.31, every reason seen
  double thermal_fraction = 0;                    // sw or hw thermal slowdown
  double hw_slowdown_fraction = 0;  // hw slowdown or power brake (the board pulled the clock)
  double power_cap_fraction = 0;    // sw power cap: the GPU at its power limit (normal under GEMM)
  double clock_start_mhz = 0;       // median of the first tenth of the samples
  double clock_end_mhz = 0;         // median of the last tenth
  double temperature_max_c = 0;
  double power_mean_w = 0;
};

// Nothing is summarised from fewer than 2 samples (samples = 0 then).
ThrottleSummary summarize_throttling(const ClockSeries& series);

// gpu.gemm measurements of `label`'s GPU: throttle_fraction (one per reason seen, params reason),
// thermal_throttle_fraction, hw_slowdown_fraction, power_cap_fraction, sm_clock_start_mhz,
// sm_clock_end_mhz, clock_end_vs_start, temperature_max_c, power_mean_w; params samples and
// seconds.
std::vector<Measurement> throttle_measurements(const ThrottleSummary& summary,
                                               const GpuLabel& label, const std::string& probe);

// The metrics throttle_measurements emits, for Probe::metrics().
std::vector<MetricSpec> throttle_metric_specs();

struct ThrottlePolicy {
  double thermal_warn = 0.01;     // thermally throttled more than 1% of the burn: WARN
  double thermal_fail = 0.10;     // more than 10%: FAIL, the hot GPU
  double hw_slowdown_fail = 0.0;  // any hardware slowdown or power brake: FAIL
  double clock_drop_warn = 0.90;  // clock at the end below 90% of the start: WARN
};

// Findings for the throttling measurements of gpu.gemm (a steady series gives none).
std::vector<Finding> judge_throttling(const std::vector<Measurement>& measurements,
                                      const ThrottlePolicy& policy = {});
// What it reads: throttle_fraction, thermal_throttle_fraction, hw_slowdown_fraction and
// clock_end_vs_start, of any probe (it does not look at the probe id).
std::vector<FigureRef> throttling_judge_reads();

}  // namespace fabcheck
