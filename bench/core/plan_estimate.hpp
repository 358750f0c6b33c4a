// Plan estimate and --budget: what each probe of a run is expected to take before it starts (from
// the estimate its ProbeInfo declares), the plan printed with it, and the trimming of repetitions,
// durations, sizes and probes that makes a plan fit a budget.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/probe.hpp"

namespace fabcheck {

// A probe that declares no estimate is assumed to take this long ("estimate: default").
constexpr double kDefaultProbeEstimate_s = 10;
// Start-up (MPI, the world, the run directory) and the end (judgement, evidence, writing): assumed;
// a two-rank run here spends about 0.5 s.
constexpr double kStartupEstimate_s = 2;
// What --budget leaves of the common knobs: timed iterations and warm-ups per size.
constexpr int kBudgetMinIters = 3;
constexpr int kBudgetMinWarmup = 1;
// A --sizes sweep loses its largest sizes while one at least this large is kept (bandwidth).
constexpr std::uint64_t kBudgetLargeSize = 1 << 20;

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

// A plan made to fit a budget. Trimming goes in this order, each step only as far as needed:
//  1. repetitions and durations: iterations, warm-ups and every option of the plan's probes that
//     declares a budget_floor (durations, repeats), scaled by one factor down to their floors;
//  2. sizes: the largest size of every sweep, round by round, while a size at least the sweep's
//     floor stays (bandwidth); then the sizes between the smallest (latency) and that one;
//  3. probes: by priority (low, normal, high; the most expensive first; essential ones stay).
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
                        const JobShape& job, double budget_s, const WaiverCheck& waived = {});

// The plan as printed before a run (and alone with --dry-run): every probe with its estimate and
// knobs, what will be waived, the trimming, the total.
std::string format_plan(const std::string& plan_name, const JobShape& job, const PlanEstimate& plan,
                        const BudgetFit* fit);

// summary.json "estimate": the budget, the estimate before and after trimming, the trimming, and
// each probe's estimate, to compare with "timing".
nlohmann::json plan_estimate_json(const PlanEstimate& plan, const BudgetFit* fit);

// A World describing `job` for applicability checks before anything runs (requirements, hosts);
// its collectives throw std::logic_error (nothing runs in it).
std::unique_ptr<World> make_planning_world(const JobShape& job);

// The trimmed knobs of `options` as text every rank can apply (the root decides, so that every rank
// runs the same plan even when their estimates would differ).
std::string encode_trimmed_options(const RunOptions& options, const std::vector<Probe*>& probes);
// Applies what encode_trimmed_options wrote: the knobs to `options`, and to `probes` the probes of
// `candidates` (the untrimmed plan) it names, in its order.
void apply_trimmed_options(const std::string& text, RunOptions& options,
                           std::vector<Probe*>& probes, const std::vector<Probe*>& candidates);

}  // namespace fabcheck
