// --budget: the trimming of repetitions, durations, sizes and probes that makes a plan fit a
// budget.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/plan_estimate.hpp"

namespace fabcheck {

// What --budget leaves of the common knobs: timed iterations and warm-ups per size.
constexpr int kBudgetMinIters = 3;
constexpr int kBudgetMinWarmup = 1;
// A --sizes sweep loses its largest sizes while one at least this large is kept (bandwidth).
constexpr std::uint64_t kBudgetLargeSize = 1 << 20;

// A plan made to fit a budget. Trimming goes in this order, each step only as far as needed:
//  1. repetitions and durations: iterations, warm-ups and every option of the plan's probes that
//     declares a budget_floor (durations, repeats), scaled by one factor down to their floors;
//  2. sizes: the largest size of every sweep, round by round, while a size at least the sweep's
//     floor stays (bandwidth); then the sizes between the smallest (latency) and that one;
//  3. probes: by priority (low, normal, high; the most expensive first; essential ones stay);
//     a probe the plan requires (`required`, PlanPlace::required) is never dropped.
// When even that minimum is over the budget, `fits` is false and the minimum is what runs.
struct BudgetFit {
  double budget_s = 0;
  PlanEstimate untrimmed;
  PlanEstimate trimmed;
  RunOptions options;                // the trimmed options
  std::vector<Probe*> probes;        // the probes kept, in plan order
  std::vector<std::string> steps;    // what each step changed, for the console and summary.json
  std::vector<std::string> dropped;  // probe ids dropped
  bool fits = true;
};

BudgetFit fit_to_budget(const std::vector<Probe*>& probes, const RunOptions& options,
                        const JobShape& job, double budget_s, const WaiverCheck& waived = {},
                        const std::vector<std::string>& required = {});

}  // namespace fabcheck
