// The plan estimate at the largest --iters and --warmup the command line takes (2147483647 each):
// every probe's estimate finite, never negative and never below its estimate at the plan's own
// counts (the sum overflowed an int: -658,169,780 s, and --budget trimmed nothing); and --budget
// trims such a plan down to what fits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bench/core/budget_fit.hpp"
#include "bench/core/plan.hpp"
#include "bench/core/plan_estimate.hpp"
#include "tests/synthetic/every_probe_registry.hpp"

namespace fabcheck {
namespace {

constexpr int kMostInt = std::numeric_limits<int>::max();

JobShape two_node_mpi_job(const std::vector<Probe*>& probes) {
  JobShape job;
  job.ranks = 16;
  job.hosts = 2;
  job.ranks_per_host = 8;
  job.backend = "mpi";
  job.mpi = true;
  for (const Probe* probe : probes) job.plan.push_back(probe->id());
  return job;
}

// Property over every probe of every family and every built-in plan's options.
TEST(PlanEstimateLimits, EveryProbeAtTheLargestCountsIsFiniteAndNoSmaller) {
  const Registry& registry = synthetic::every_probe_registry();
  const std::vector<Probe*> probes = registry.all();
  const JobShape job = two_node_mpi_job(probes);
  int checked = 0;
  for (const Plan& plan : builtin_plans()) {
    RunOptions largest = plan.options;
    largest.iters = kMostInt;
    largest.warmup = kMostInt;
    for (const Probe* probe : probes) {
      if (!probe->info().estimate) continue;
      const double usual = probe->info().estimate(plan.options, job).seconds;
      const double most = probe->info().estimate(largest, job).seconds;
      EXPECT_TRUE(std::isfinite(most)) << probe->id() << " in plan " << plan.name;
      EXPECT_GE(most, 0) << probe->id() << " in plan " << plan.name;
      EXPECT_GE(most, usual) << probe->id() << " in plan " << plan.name;
      const double clamped = estimated_probe_seconds(*probe, largest, job);
      EXPECT_GE(clamped, 0) << probe->id();
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(PlanEstimateLimits, BudgetTrimsAPlanOfTheLargestCounts) {
  const Registry& registry = synthetic::every_probe_registry();
  const std::vector<Probe*> probes = registry.plan_probes("sweep");
  ASSERT_FALSE(probes.empty());
  RunOptions options = find_plan("sweep").options;
  options.iters = kMostInt;
  options.warmup = kMostInt;
  const JobShape job = two_node_mpi_job(probes);
  const PlanEstimate untrimmed = estimate_plan(probes, options, job);
  EXPECT_GT(untrimmed.total_s(), 60);  // it did not: the overflow made it negative
  const BudgetFit fit = fit_to_budget(probes, options, job, 600);
  EXPECT_LT(fit.options.iters, kMostInt);
  EXPECT_LT(fit.options.warmup, kMostInt);
  EXPECT_FALSE(fit.steps.empty());
  if (fit.fits) {
    EXPECT_LE(fit.trimmed.total_s(), 600);
  }
}

}  // namespace
}  // namespace fabcheck
