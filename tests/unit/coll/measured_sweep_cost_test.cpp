// The collectives' estimate from an earlier run's per-size step times (--estimate-from): rescaled
// operations, a size between two measured ones, beyond the largest, the time outside the steps,
// and no estimate where the records do not fit the job (figures hand-computed; records synthetic,
// written as run_collective_sweep writes them).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "bench/coll/collective.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/measured_sweep_cost.hpp"
#include "bench/coll/register.hpp"
#include "bench/core/earlier_run.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/registry.hpp"

namespace fabcheck {
namespace {

Measurement step_record(std::uint64_t size, double time_us, double step_s, int operations,
                        const char* placement = "out") {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "time_us";
  m.unit = "us";
  m.value = time_us;
  m.rank = -1;
  m.host = "node01";
  m.size_bytes = size;
  m.params = {{"backend", "mpi"},
              {"ranks", "2"},
              {"placement", placement},
              {"count", std::to_string(size / 4)},
              {"ops_per_sample", "1"},
              {"step_s", fmt::format("{}", step_s)},
              {"operations", std::to_string(operations)}};
  return m;
}

// 1 KiB: 10 us an operation, 0.01 s a step of 32 operations (0.00968 s besides them); 4 KiB: 40 us,
// 0.02 s (0.01872 s besides); the probe took 0.5 s there, 0.47 s outside its steps.
EarlierRun earlier_run() {
  EarlierRun run;
  run.dir = "/runs/earlier";
  run.probe_seconds["coll.all_reduce"] = 0.5;
  run.measurements = {step_record(1024, 10, 0.01, 32), step_record(4096, 40, 0.02, 32)};
  Measurement busbw = run.measurements[0];
  busbw.metric = "busbw";  // not a time: not read
  busbw.value = 99;
  run.measurements.push_back(busbw);
  return run;
}

SweepConfig config_of(std::vector<std::uint64_t> sizes) {
  SweepConfig config;
  config.collective = &find_collective("all_reduce");
  config.sizes = std::move(sizes);
  config.warmup = 5;
  config.iters = 20;  // 5 + 20 + 1 = 26 operations a step
  return config;
}

TEST(MeasuredSweepCost, OperationsRescaledBetweenAndBeyondTheSizesMeasured) {
  const auto estimate = measured_sweep_estimate(config_of({1024, 2048, 8192}), "coll.all_reduce",
                                                "mpi", 2, earlier_run());
  ASSERT_TRUE(estimate);
  // 1 KiB: 26 x 10 us + 0.00968 = 0.00994 s.
  // 2 KiB, half way (log scale): 26 x 20 us + sqrt(0.00968 x 0.01872) = 0.00052 + 0.0134614 s.
  // 8 KiB, twice the largest: 26 x 80 us + 2 x 0.01872 = 0.00208 + 0.03744 s.
  // Plus 0.47 s outside the steps: 0.5334414 s.
  EXPECT_NEAR(estimate->seconds, 0.5334414, 1e-6);
  EXPECT_NE(estimate->knobs.find("per-size times measured in /runs/earlier (1 of 3 sizes there)"),
            std::string::npos)
      << estimate->knobs;
}

TEST(MeasuredSweepCost, BelowTheSmallestAsTheSmallestAndAnUnmeasuredPlacementAsTheOther) {
  SweepConfig config = config_of({256});
  config.placements = {Placement::out_of_place, Placement::in_place};
  const auto estimate = measured_sweep_estimate(config, "coll.all_reduce", "mpi", 2, earlier_run());
  ASSERT_TRUE(estimate);
  // Two steps as 1 KiB's: 2 x 0.00994 + 0.47.
  EXPECT_NEAR(estimate->seconds, 0.47 + 2 * 0.00994, 1e-9);
}

TEST(MeasuredSweepCost, NoEstimateWhereTheEarlierRunDoesNotFitTheJob) {
  const SweepConfig config = config_of({1024});
  EXPECT_FALSE(measured_sweep_estimate(config, "coll.all_reduce", "nccl", 2, earlier_run()));
  EXPECT_FALSE(measured_sweep_estimate(config, "coll.all_reduce", "mpi", 4, earlier_run()));
  EXPECT_FALSE(measured_sweep_estimate(config, "coll.all_gather", "mpi", 2, earlier_run()));
  EarlierRun old_records = earlier_run();
  for (auto& m : old_records.measurements) m.params.erase("step_s");  // before step times were kept
  EXPECT_FALSE(measured_sweep_estimate(config, "coll.all_reduce", "mpi", 2, old_records));
  EarlierRun garbled = earlier_run();
  for (auto& m : garbled.measurements) m.params["operations"] = "many";
  EXPECT_FALSE(measured_sweep_estimate(config, "coll.all_reduce", "mpi", 2, garbled));
}

// coll.all_reduce as its family registers it, on a job of 2 MPI ranks, its options at 1 KiB.
class ThroughTheProbe : public testing::Test {
 protected:
  void SetUp() override {
    register_coll_probes(registry);
    probe = registry.find("coll.all_reduce");
    ASSERT_NE(probe, nullptr);
    options.sizes = {1024};
    job.ranks = 2;
    job.backend = "mpi";
  }
  Registry registry;
  const Probe* probe = nullptr;
  RunOptions options;
  JobShape job;
};

// Through the probe's declared estimate: the job's earlier run replaces the assumed rates.
TEST_F(ThroughTheProbe, TheCollectiveProbeEstimatesFromTheJobsEarlierRun) {
  options.iters = 20;
  options.warmup = 5;
  const double assumed = estimated_probe_seconds(*probe, options, job);
  job.earlier = std::make_shared<EarlierRun>(earlier_run());
  EXPECT_NEAR(estimated_probe_seconds(*probe, options, job), 0.47 + 0.00994, 1e-9);
  EXPECT_GT(std::abs(assumed - (0.47 + 0.00994)), 0.1) << "the assumed rates were used";
}

// --estimate-from a run whose records cannot serve the probe (kept before step times were): the
// assumed rates, and the estimate's knobs say so and why, never silently.
TEST_F(ThroughTheProbe, AnEarlierRunThatCannotServeTheProbeIsSaid) {
  const ProbeEstimate without = probe->info().estimate(options, job);
  EarlierRun old_records = earlier_run();
  for (auto& m : old_records.measurements) m.params.erase("step_s");
  job.earlier = std::make_shared<EarlierRun>(old_records);
  const ProbeEstimate with = probe->info().estimate(options, job);
  EXPECT_DOUBLE_EQ(with.seconds, without.seconds);
  EXPECT_EQ(with.knobs, without.knobs +
                            "; assumed rates: /runs/earlier has no per-size times of "
                            "coll.all_reduce on mpi at 2 ranks");
}

}  // namespace
}  // namespace fabcheck
