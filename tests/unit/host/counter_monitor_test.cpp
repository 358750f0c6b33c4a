// The runner reads every counter monitor around each heavy probe, on the host's first rank, and
// emits what grew tagged with the probe that ran meanwhile; light probes are not watched.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

class CountingProbe final : public Probe {
 public:
  CountingProbe(std::string id, bool heavy, std::uint64_t* counter)
      : Probe({.id = std::move(id), .description = "test", .heavy = heavy}), counter_(counter) {}
  // Drives the fake link's error counter, as load on a bad cable would.
  void run(RunContext&, MeasurementSink&) override { *counter_ += 7; }

 private:
  std::uint64_t* counter_;
};

TEST(CounterMonitor, GrowthDuringAHeavyProbeIsEmittedWithIt) {
  testing::TempDir dir;
  std::uint64_t symbol_errors = 3;
  CountingProbe light("test.light", false, &symbol_errors);
  CountingProbe heavy("test.heavy", true, &symbol_errors);
  int reads = 0;
  CounterMonitor monitor{
      "fake",
      [&](const RunOptions&) {
        ++reads;
        return CounterReadings{{"mlx5_0/1", {{"counters/symbol_error", symbol_errors}}}};
      },
      [](const CounterReadings& before, const CounterReadings& after, double) {
        Measurement m;
        m.probe = "fabric.ib_counters";
        m.metric = "error_counter_delta";
        m.subject = "mlx5_0/1";
        m.value = static_cast<double>(after.at("mlx5_0/1").at("counters/symbol_error") -
                                      before.at("mlx5_0/1").at("counters/symbol_error"));
        return std::vector<Measurement>{m};
      }};
  RunRequest request;
  request.probes = {&light, &heavy};
  request.monitors = {monitor};
  request.out_dir = dir.path() / "run";
  request.versions = nlohmann::json::object();
  Runner runner(std::move(request));
  auto world = make_single_world();
  runner.execute(*world);
  EXPECT_EQ(reads, 2);  // before and after the heavy probe only
  std::ifstream in(dir.path() / "run" / "measurements.jsonl");
  std::string line;
  std::vector<nlohmann::json> growth;
  while (std::getline(in, line)) {
    auto record = nlohmann::json::parse(line);
    if (record["metric"] == "error_counter_delta") growth.push_back(record);
  }
  ASSERT_EQ(growth.size(), 1u);
  EXPECT_EQ(growth[0]["value"], 7);
  EXPECT_EQ(growth[0]["params"]["during"], "test.heavy");
  EXPECT_EQ(growth[0]["subject"], "mlx5_0/1");
}

}  // namespace
}  // namespace fabcheck
