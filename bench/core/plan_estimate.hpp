// Plan estimate: what each probe of a run is expected to take before it starts, from the estimate
// its ProbeInfo declares (or a default), and what will be waived, known before running.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

// A probe that declares no estimate is assumed to take this long ("estimate: default").
constexpr double kDefaultProbeEstimate_s = 10;
// Start-up (MPI, the world, the run directory) and the end (judgement, evidence, writing): assumed;
// a two-rank run here spends about 0.5 s.
constexpr double kStartupEstimate_s = 2;

// The estimate of a probe whose cost does not follow from its options (a read of sysfs or of a
// log): `seconds` assumed, said so in the knobs ("assumed: reads sysfs").
std::function<ProbeEstimate(const RunOptions&, const JobShape&)> fixed_estimate(double seconds,
                                                                                std::string what);

// "1KiB..64MiB (7 sizes)", "64KiB,4MiB": a sweep as the plan shows it.
std::string describe_sizes(const std::vector<std::uint64_t>& sizes);
// "3 warm-up + 10 iters"
std::string describe_iterations(const RunOptions& options);

// Seconds `probe` is expected to take with `options` on `job`: its declared estimate, else
// kDefaultProbeEstimate_s; never more than the probe's time limit (RunOptions::probe_timeout_s).
// For a progress display: cheap, no side effects.
double estimated_probe_seconds(const Probe& probe, const RunOptions& options, const JobShape& job);

struct PlannedProbe {
  std::string id;
  double seconds = 0;    // 0 when waived
  bool modelled = true;  // false: no model, kDefaultProbeEstimate_s
  bool clamped = false;  // the probe's time limit bounds the model
  std::string knobs;     // what sets the estimate
  std::string waived;    // why it will be waived, when known before running; "" runs
  BudgetPriority priority = BudgetPriority::normal;
};

struct PlanEstimate {
  std::vector<PlannedProbe> probes;
  double startup_s = kStartupEstimate_s;
  double probes_s() const;
  double total_s() const { return startup_s + probes_s(); }
};

// Why a probe will be waived on this job, when that is known before running ("" when it runs or
// cannot be told yet).
using WaiverCheck = std::function<std::string(const Probe&, const RunOptions&)>;

PlanEstimate estimate_plan(const std::vector<Probe*>& probes, const RunOptions& options,
                           const JobShape& job, const WaiverCheck& waived = {});

}  // namespace fabcheck
