// Throttling over time through the NVML test double: a synthetic burn series in which one GPU
// starts to throttle thermally after a while is named with its fraction and its clock drop; a
// steady series gives nothing; the sampler thread samples on its period.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/sys/nvml_api.hpp"
#include "kernels/clock_sampler.hpp"
#include "kernels/throttle_analysis.hpp"
#include "tests/doubles/fake_nvml.hpp"

namespace fabcheck {
namespace {

using namespace nvml_reasons;

// A 30 s burn sampled every 100 ms through the test double: GPU 1 holds its clock for `hold`
// samples and then throttles thermally at 1605 MHz and 89 C; GPU 0 stays at its power cap.
std::vector<ClockSeries> burn(std::size_t hold, std::size_t samples = 300) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(2);
  const auto api = testing::make_fake_nvml(gpus);
  std::vector<ClockSeries> series(2);
  for (std::size_t i = 0; i < samples; ++i) {
    for (auto& gpu : *gpus) {
      gpu.reasons = kSwPowerCap;
      gpu.sm_clock = 1980;
      gpu.temperature = 71;
      gpu.power_mw = 690000;
    }
    if (i >= hold) {
      (*gpus)[1].reasons = kSwThermalSlowdown | kHwThermalSlowdown;
      (*gpus)[1].sm_clock = 1605;
      (*gpus)[1].temperature = 89;
    }
    for (unsigned g = 0; g < 2; ++g)
      series[g].push_back(*read_clock_sample(*api, g, 0.1 * static_cast<double>(i)));
  }
  return series;
}

std::vector<Measurement> measured(const std::vector<ClockSeries>& series) {
  std::vector<Measurement> out;
  for (std::size_t g = 0; g < series.size(); ++g) {
    GpuLabel label{static_cast<int>(g), "0000:1" + std::to_string(g) + ":00.0", "NVIDIA H100"};
    auto mine = throttle_measurements(summarize_throttling(series[g]), label, "gpu.gemm");
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

TEST(Throttling, AGpuThatThrottlesAfterAWhileIsNamedWithItsFraction) {
  const auto series = burn(200);
  const ThrottleSummary hot = summarize_throttling(series[1]);
  EXPECT_EQ(hot.samples, 300u);
  EXPECT_NEAR(hot.duration_s, 29.9, 1e-9);
  EXPECT_NEAR(hot.thermal_fraction, 100.0 / 300, 1e-9);
  EXPECT_NEAR(hot.reason_fraction.at("thermal-sw"), 100.0 / 300, 1e-9);
  EXPECT_NEAR(hot.reason_fraction.at("power-cap"), 200.0 / 300, 1e-9);
  EXPECT_EQ(hot.clock_start_mhz, 1980);
  EXPECT_EQ(hot.clock_end_mhz, 1605);
  EXPECT_EQ(hot.temperature_max_c, 89);
  EXPECT_DOUBLE_EQ(hot.power_mean_w, 690);

  const auto findings = judge_throttling(measured(series));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "gpu1");
  EXPECT_EQ(findings[0].metric, "thermal_throttle_fraction");
  EXPECT_NE(findings[0].message.find("hot GPU: thermally throttled 33.3%"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("0000:11:00.0"), std::string::npos);
  EXPECT_NE(findings[0].message.find("thermal-sw 33%"), std::string::npos);
  EXPECT_EQ(findings[1].severity, Severity::warn);
  EXPECT_EQ(findings[1].metric, "clock_end_vs_start");
  EXPECT_NE(findings[1].message.find("1980 MHz at the start, 1605 MHz at the end"),
            std::string::npos)
      << findings[1].message;
}

TEST(Throttling, SteadySeriesGivesNothingAndBriefThrottlingOnlyWarns) {
  EXPECT_TRUE(judge_throttling(measured(burn(300))).empty());
  // Six samples of 300 (2%) thermally throttled, clock back at the end: a WARN.
  auto series = burn(300);
  for (std::size_t i = 100; i < 106; ++i) *series[1][i].reasons = kSwThermalSlowdown;
  const auto findings = judge_throttling(measured(series));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
}

TEST(Throttling, HardwareSlowdownFailsAndUnknownReasonsAreKept) {
  auto series = burn(300, 50);
  *series[0][10].reasons = kHwPowerBrakeSlowdown;
  *series[0][11].reasons = 0x800;  // a reason newer than fabcheck
  const auto summary = summarize_throttling(series[0]);
  EXPECT_DOUBLE_EQ(summary.hw_slowdown_fraction, 1.0 / 50);
  EXPECT_DOUBLE_EQ(summary.reason_fraction.at("bit-0x800"), 1.0 / 50);
  const auto findings = judge_throttling(measured(series));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].metric, "hw_slowdown_fraction");
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_TRUE(throttle_measurements(summarize_throttling({}), {}, "gpu.gemm").empty());
}

TEST(ClockSampler, SamplesEveryGpuOnItsPeriod) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(2);
  ClockSampler sampler(testing::make_fake_nvml(gpus), {0, 1}, 0.02);
  std::this_thread::sleep_for(std::chrono::milliseconds(210));
  const auto series = sampler.stop();
  ASSERT_EQ(series.size(), 2u);
  EXPECT_GE(series[0].size(), 5u);
  EXPECT_LE(series[0].size(), 13u);
  EXPECT_EQ(series[0].size(), series[1].size());
  EXPECT_EQ(series[1].front().reasons, 0x4u);
  EXPECT_LT(series[0].front().t_s, series[0].back().t_s);
}

}  // namespace
}  // namespace fabcheck
