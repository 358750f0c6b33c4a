// Estimates of a plan before it runs: each probe's declared model, the default, the time limit.
#include "bench/core/plan_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/units.hpp"

namespace fabcheck {

std::function<ProbeEstimate(const RunOptions&, const JobShape&)> fixed_estimate(double seconds,
                                                                                std::string what) {
  return [seconds, knobs = "assumed: " + what](const RunOptions&, const JobShape&) {
    return ProbeEstimate{seconds, knobs};
  };
}

std::string describe_sizes(const std::vector<std::uint64_t>& sizes) {
  if (sizes.empty()) return "no sizes";
  if (sizes.size() <= 3) {
    std::string text;
    for (auto size : sizes) text += (text.empty() ? "" : ",") + format_bytes(size);
    return text;
  }
  return fmt::format("{}..{} ({} sizes)", format_bytes(sizes.front()), format_bytes(sizes.back()),
                     sizes.size());
}

std::string describe_iterations(const RunOptions& options) {
  return fmt::format("{} warm-up + {} iters", options.warmup, options.iters);
}

double estimated_probe_seconds(const Probe& probe, const RunOptions& options, const JobShape& job) {
  const auto& model = probe.info().estimate;
  const double seconds = model ? model(options, job).seconds : kDefaultProbeEstimate_s;
  return std::min(seconds, options.probe_timeout_s);
}

double PlanEstimate::probes_s() const {
  double total = 0;
  for (const auto& probe : probes) total += probe.seconds;
  return total;
}

PlanEstimate estimate_plan(const std::vector<Probe*>& probes, const RunOptions& options,
                           const JobShape& job, const WaiverCheck& waived) {
  PlanEstimate plan;
  for (const Probe* probe : probes) {
    PlannedProbe planned;
    planned.id = probe->id();
    planned.priority = probe->info().budget_priority;
    if (waived) planned.waived = waived(*probe, options);
    if (planned.waived.empty()) {
      const auto& model = probe->info().estimate;
      if (model) {
        const ProbeEstimate estimate = model(options, job);
        planned.seconds = estimate.seconds;
        planned.knobs = estimate.knobs;
      } else {
        planned.seconds = kDefaultProbeEstimate_s;
        planned.modelled = false;
        planned.knobs = "estimate: default";
      }
      if (planned.seconds > options.probe_timeout_s) {
        planned.seconds = options.probe_timeout_s;
        planned.clamped = true;
      }
    }
    plan.probes.push_back(std::move(planned));
  }
  return plan;
}

}  // namespace fabcheck
