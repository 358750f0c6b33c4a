// Estimates before a run (the collective sweep's model, a probe's declared estimate, the default,
// the time limit) and --budget's trimming: its order, its floors, a plan that fits, a minimum that
// cannot.
#include <gtest/gtest.h>

#include <memory>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/register.hpp"
#include "bench/core/budget_fit.hpp"
#include "bench/core/plan.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/plan_text.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/trimmed_plan.hpp"

namespace fabcheck {
namespace {

class ModelProbe final : public Probe {
 public:
  explicit ModelProbe(ProbeInfo info) : Probe(std::move(info)) {}
  void run(RunContext&, MeasurementSink&) override {}
};

const OptionSpec kDuration{.key = "fake.duration_s",
                           .type = OptionType::number,
                           .default_value = "4",
                           .meaning = "seconds",
                           .min = 0.1,
                           .max = 100,
                           .budget_floor = "1"};
const OptionSpec kSizes{.key = "fake.sizes",
                        .type = OptionType::size_sweep,
                        .default_value = "1K,64K,1M,64M,256M",
                        .meaning = "sizes",
                        .budget_floor = "1M"};

// duration + 0.1 s an iteration + 1 s per 100 MB of sizes (a model the test computes by hand).
ProbeEstimate fake_model(const RunOptions& options, const JobShape&) {
  double seconds = option_number(options, kDuration) + 0.1 * options.iters;
  for (auto size : option_sizes(options, kSizes)) seconds += static_cast<double>(size) / 1e8;
  return {seconds, "fake"};
}

std::unique_ptr<Probe> probe(const std::string& id, BudgetPriority priority, bool model = true,
                             double fixed_s = 0) {
  ProbeInfo info{.id = id, .budget_priority = priority};
  if (model && fixed_s == 0) {
    info.options = {kDuration, kSizes};
    info.estimate = fake_model;
  } else if (model) {
    info.estimate = fixed_estimate(fixed_s, "a read");
  }
  return std::make_unique<ModelProbe>(std::move(info));
}

RunOptions plan_options() {
  RunOptions options;
  options.iters = 20;
  options.warmup = 5;
  return options;
}

const JobShape kTwoRanks{.ranks = 2, .hosts = 1, .ranks_per_host = 2, .backend = "mpi"};

TEST(SweepEstimate, AllReduceOnTwoRanksAsComputedByHand) {
  SweepConfig config;
  config.collective = &find_collective("all_reduce");
  config.sizes = {1 << 20, 64 << 20};
  config.warmup = 3;
  config.iters = 10;
  const SweepCostModel model{
      .latency_s = 50e-6, .busbw_gbps = 0.25, .memory_gbps = 0.25, .ops_per_sample = 1};
  // 3 warm-up + 10 timed + 1 checked = 14 operations a size; bus factor 1 on two ranks.
  // 1 MiB: 14 x (50e-6 + 1048576 / 0.25e9) + 3 x 1048576 / 0.25e9 = 0.072003168
  // 64 MiB: 14 x (50e-6 + 67108864 / 0.25e9) + 3 x 67108864 / 0.25e9 = 4.564102752
  EXPECT_NEAR(estimated_sweep_seconds(config, 2, model), 4.63610592, 1e-9);
  // NCCL's four operations a sample: 10 iters are 2 samples of 4, so 3 + 8 + 1 operations.
  SweepConfig one = config;
  one.sizes = {64 << 20};
  const SweepCostModel four{
      .latency_s = 0, .busbw_gbps = 1, .memory_gbps = 1e9, .ops_per_sample = 4};
  EXPECT_NEAR(estimated_sweep_seconds(one, 2, four), 12 * 67108864 / 1e9, 1e-6);
}

TEST(SweepEstimate, TheCollectiveProbeReadsItsSizesIterationsAndPlacement) {
  Registry registry;
  register_coll_probes(registry);
  const Probe& all_reduce = *registry.find("coll.all_reduce");
  RunOptions options;
  options.warmup = 3;
  options.iters = 10;
  options.extra["coll.sizes.mpi"] = "1M,64M";
  ASSERT_TRUE(all_reduce.info().estimate);
  const ProbeEstimate estimate = all_reduce.info().estimate(options, kTwoRanks);
  // assumed_sweep_cost("mpi"), as above, and 0.2 s to make the backend.
  EXPECT_NEAR(estimate.seconds, 0.2 + 4.63610592, 1e-6);
  EXPECT_EQ(estimate.knobs, "sizes 1MiB,64MiB, 3 warm-up + 10 iters");
  options.extra["placement"] = "both";
  EXPECT_NEAR(all_reduce.info().estimate(options, kTwoRanks).seconds, 0.2 + 2 * 4.63610592, 1e-6);
}

TEST(PlanEstimateTest, DefaultForProbesWithoutAModelAndTheTimeLimitBoundsTheRest) {
  auto modelled = probe("a.model", BudgetPriority::normal);
  auto unmodelled = probe("b.none", BudgetPriority::normal, /*model=*/false);
  RunOptions options = plan_options();
  options.probe_timeout_s = 5;
  // fake_model: 4 + 2 + (1K + 64K + 1M + 64M + 256M) / 1e8 = 9.37... s, above the limit of 5.
  const PlanEstimate plan =
      estimate_plan({modelled.get(), unmodelled.get()}, options, kTwoRanks, {});
  ASSERT_EQ(plan.probes.size(), 2U);
  EXPECT_DOUBLE_EQ(plan.probes[0].seconds, 5);
  EXPECT_TRUE(plan.probes[0].clamped);
  EXPECT_FALSE(plan.probes[1].modelled);
  EXPECT_DOUBLE_EQ(plan.probes[1].seconds, 5);  // the default (10) bounded too
  options.probe_timeout_s = 300;
  const PlanEstimate unbounded = estimate_plan({unmodelled.get()}, options, kTwoRanks, {});
  EXPECT_DOUBLE_EQ(unbounded.probes[0].seconds, kDefaultProbeEstimate_s);
  EXPECT_EQ(unbounded.probes[0].knobs, "estimate: default");
  EXPECT_DOUBLE_EQ(unbounded.total_s(), kStartupEstimate_s + kDefaultProbeEstimate_s);
  const std::string text = format_plan("test", kTwoRanks, unbounded, nullptr);
  EXPECT_NE(text.find("b.none"), std::string::npos) << text;
  EXPECT_NE(text.find("estimate: default"), std::string::npos) << text;
  EXPECT_NE(text.find("estimated total 12.0 s"), std::string::npos) << text;
}

TEST(PlanEstimateTest, AWaivedProbeCostsNothingAndSaysWhy) {
  auto storage = probe("storage.x", BudgetPriority::normal);
  const PlanEstimate plan =
      estimate_plan({storage.get()}, plan_options(), kTwoRanks,
                    [](const Probe&, const RunOptions&) { return std::string("no path"); });
  EXPECT_DOUBLE_EQ(plan.probes_s(), 0);
  EXPECT_NE(format_plan("t", kTwoRanks, plan, nullptr).find("WAIVED here: no path"),
            std::string::npos);
}

TEST(BudgetFitTest, APlanThatFitsIsUnchanged) {
  auto a = probe("a.model", BudgetPriority::normal);
  const RunOptions options = plan_options();
  const BudgetFit fit = fit_to_budget({a.get()}, options, kTwoRanks, 1000);
  EXPECT_TRUE(fit.fits);
  EXPECT_TRUE(fit.steps.empty());
  EXPECT_EQ(fit.options.iters, options.iters);
  EXPECT_EQ(fit.options.extra, options.extra);
  EXPECT_EQ(fit.probes.size(), 1U);
  EXPECT_DOUBLE_EQ(fit.trimmed.total_s(), fit.untrimmed.total_s());
}

TEST(BudgetFitTest, RepetitionsAndDurationsGoFirstAndOnlyAsFarAsNeeded) {
  auto a = probe("a.model", BudgetPriority::normal);
  const RunOptions options = plan_options();
  const double untrimmed = estimate_plan({a.get()}, options, kTwoRanks).total_s();
  // Untrimmed: 2 + 4 + 2 + 3.2... s; a budget 2 s below needs only the first step.
  const BudgetFit fit = fit_to_budget({a.get()}, options, kTwoRanks, untrimmed - 2);
  EXPECT_TRUE(fit.fits);
  EXPECT_LE(fit.trimmed.total_s(), untrimmed - 2);
  EXPECT_GT(fit.trimmed.total_s(), untrimmed - 2.2);  // as far as needed, not to the floors
  EXPECT_LT(fit.options.iters, options.iters);
  EXPECT_GE(fit.options.iters, kBudgetMinIters);
  EXPECT_LT(option_number(fit.options, kDuration), 4);
  EXPECT_EQ(option_sizes(fit.options, kSizes), option_sizes(options, kSizes));  // sizes kept
  ASSERT_EQ(fit.steps.size(), 1U);
  EXPECT_EQ(fit.steps[0].rfind("repetitions and durations", 0), 0U) << fit.steps[0];
}

TEST(BudgetFitTest, ThenTheLargestSizesKeepingTheSmallestAndOneLarge) {
  auto a = probe("a.model", BudgetPriority::normal);
  const RunOptions options = plan_options();
  // At the floors: 2 + 1 + 0.3 + 3.3666 s; without 256M: 3.982; without 64M too: 3.3112.
  const BudgetFit fit = fit_to_budget({a.get()}, options, kTwoRanks, 4);
  EXPECT_TRUE(fit.fits);
  EXPECT_EQ(fit.options.iters, kBudgetMinIters);
  EXPECT_EQ(fit.options.warmup, kBudgetMinWarmup);
  EXPECT_DOUBLE_EQ(option_number(fit.options, kDuration), 1);
  EXPECT_EQ(option_sizes(fit.options, kSizes),
            (std::vector<std::uint64_t>{1024, 64 << 10, 1 << 20, 64 << 20}));
  ASSERT_EQ(fit.steps.size(), 2U);
  EXPECT_EQ(fit.steps[1].rfind("sizes: fake.sizes", 0), 0U) << fit.steps[1];
  // Tighter: 64M goes (1M, at the floor, stays), then the sizes between the smallest and 1M:
  // 3.3105 s.
  const BudgetFit tight = fit_to_budget({a.get()}, options, kTwoRanks, 3.311);
  EXPECT_EQ(option_sizes(tight.options, kSizes), (std::vector<std::uint64_t>{1024, 1 << 20}));
  EXPECT_TRUE(tight.dropped.empty());
}

TEST(BudgetFitTest, ThenProbesByPriorityAndTheEssentialOnesStay) {
  auto essential = probe("node.read", BudgetPriority::essential, true, 1);
  auto high = probe("coll.high", BudgetPriority::high, true, 3);
  auto normal = probe("coll.normal", BudgetPriority::normal, true, 2);
  auto low_small = probe("coll.low_small", BudgetPriority::low, true, 1);
  auto low_big = probe("coll.low_big", BudgetPriority::low, true, 2);
  const std::vector<Probe*> plan = {essential.get(), high.get(), normal.get(), low_small.get(),
                                    low_big.get()};
  // 2 + 1 + 3 + 2 + 1 + 2 = 11 s. A budget of 8: the bigger low one goes, then the other.
  const BudgetFit fit = fit_to_budget(plan, plan_options(), kTwoRanks, 8);
  EXPECT_TRUE(fit.fits);
  EXPECT_EQ(fit.dropped, (std::vector<std::string>{"coll.low_big", "coll.low_small"}));
  ASSERT_EQ(fit.probes.size(), 3U);
  EXPECT_EQ(fit.probes[2]->id(), "coll.normal");  // plan order kept
  // A budget below the essential minimum: everything else goes, the minimum runs, said so.
  const BudgetFit minimum = fit_to_budget(plan, plan_options(), kTwoRanks, 2.5);
  EXPECT_FALSE(minimum.fits);
  EXPECT_EQ(minimum.dropped, (std::vector<std::string>{"coll.low_big", "coll.low_small",
                                                       "coll.normal", "coll.high"}));
  ASSERT_EQ(minimum.probes.size(), 1U);
  EXPECT_EQ(minimum.probes[0]->id(), "node.read");
  const std::string text = format_plan("t", kTwoRanks, minimum.trimmed, &minimum);
  EXPECT_NE(text.find("cannot be met"), std::string::npos) << text;
  const auto json = plan_estimate_json(minimum.trimmed, &minimum);
  EXPECT_EQ(json["fits"], false);
  EXPECT_DOUBLE_EQ(json["budget_s"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(json["untrimmed_s"].get<double>(), 11);
  EXPECT_DOUBLE_EQ(json["estimated_s"].get<double>(), 3);
}

// A probe the plan requires (the gate's all-reduce) is never dropped, not even by --budget 1.
TEST(BudgetFitTest, ARequiredProbeStaysWhateverTheBudget) {
  auto essential = probe("node.read", BudgetPriority::essential, true, 1);
  auto required = probe("coll.required", BudgetPriority::high, true, 3);
  auto low = probe("coll.low", BudgetPriority::low, true, 2);
  const std::vector<Probe*> plan = {essential.get(), required.get(), low.get()};
  const BudgetFit fit = fit_to_budget(plan, plan_options(), kTwoRanks, 1, {}, {"coll.required"});
  EXPECT_FALSE(fit.fits);
  EXPECT_EQ(fit.dropped, (std::vector<std::string>{"coll.low"}));
  ASSERT_EQ(fit.probes.size(), 2U);
  EXPECT_EQ(fit.probes[1]->id(), "coll.required");
  // Without the declaration it would go (what main did with the gate's all-reduce).
  EXPECT_EQ(fit_to_budget(plan, plan_options(), kTwoRanks, 1).probes.size(), 1U);
}

// The gate declares its all-reduce required, and --budget 1 on the real gate plan keeps it.
TEST(BudgetFitTest, TheGatesAllReduceSurvivesBudgetOne) {
  Registry registry;
  register_coll_probes(registry);
  const auto required = registry.required_probes("gate");
  EXPECT_EQ(required, (std::vector<std::string>{"coll.all_reduce"}));
  const auto plan = registry.plan_probes("gate");
  RunOptions options = find_plan("gate").options;
  const BudgetFit fit = fit_to_budget(plan, options, kTwoRanks, 1, {}, required);
  EXPECT_NE(std::find_if(fit.probes.begin(), fit.probes.end(),
                         [](const Probe* p) { return p->id() == "coll.all_reduce"; }),
            fit.probes.end());
}

TEST(BudgetFitTest, EveryRankAppliesTheRootsTrimmedPlan) {
  auto a = probe("a.model", BudgetPriority::low);
  auto b = probe("b.read", BudgetPriority::essential, true, 1);
  const std::vector<Probe*> plan = {a.get(), b.get()};
  const BudgetFit fit = fit_to_budget(plan, plan_options(), kTwoRanks, 3.2);
  ASSERT_EQ(fit.probes.size(), 1U);
  RunOptions mine = plan_options();
  std::vector<Probe*> probes = plan;
  // As it crosses ranks: the root's plan, encoded, decoded on another rank.
  const auto sent = wire_decode<TrimmedPlan>(wire_encode(trimmed_plan_of(fit.options, fit.probes)),
                                             "the root's plan");
  apply_trimmed_plan(sent, mine, probes, plan);
  EXPECT_EQ(mine.iters, fit.options.iters);
  EXPECT_EQ(mine.extra, fit.options.extra);
  EXPECT_EQ(probes, fit.probes);
}

}  // namespace
}  // namespace fabcheck
