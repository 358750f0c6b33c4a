// GPU telemetry as measurements and back: names, units, params, and a lossless round trip.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/sys/gpu_telemetry.hpp"
#include "kernels/telemetry_measurements.hpp"

namespace fabcheck {
namespace {

GpuTelemetry sample() {
  GpuTelemetry t;
  t.index = 3;
  t.bus_id = "0000:5d:00.0";
  t.model = "NVIDIA H100 80GB HBM3";
  t.uuid = "GPU-abc";
  t.phase = TelemetryPhase::load;
  t.temperature_c = 87;
  t.sm_clock_mhz = 1755;
  t.clock_event_reasons = 0x60;
  t.remapped_rows_pending = true;
  t.pcie_gen = 4;
  t.pcie_gen_max = 5;
  t.nvlink_links = 18;
  t.nvlink_inactive = {7, 11};
  t.foreign_memory_gb = 30;
  t.foreign_pids = "48211:30.0GB";
  return t;
}

const Measurement& find(const std::vector<Measurement>& all, const std::string& metric) {
  const auto found = std::find_if(all.begin(), all.end(),
                                  [&](const Measurement& m) { return m.metric == metric; });
  EXPECT_NE(found, all.end()) << metric;
  return *found;
}

TEST(TelemetryMeasurements, KnownFiguresOnlyWithUnitsAndParams) {
  const auto all = telemetry_to_measurements(sample(), "gpu.gemm");
  EXPECT_EQ(all.size(), 9u);  // the nine figures set in sample(), nvlink_links and _inactive both
  const Measurement& hot = find(all, "temperature_c");
  EXPECT_EQ(hot.probe, "gpu.gemm");
  EXPECT_EQ(hot.unit, "C");
  EXPECT_EQ(hot.value, 87);
  EXPECT_EQ(hot.subject, "gpu3");
  EXPECT_EQ(hot.params.at("bus_id"), "0000:5d:00.0");
  EXPECT_EQ(hot.params.at("model"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(hot.params.at("phase"), "load");
  EXPECT_EQ(find(all, "sm_clock_mhz").unit, "MHz");
  EXPECT_EQ(find(all, "clock_event_reasons").params.at("reasons"), "thermal-sw,thermal-hw");
  EXPECT_EQ(find(all, "nvlink_inactive").value, 2);
  EXPECT_EQ(find(all, "nvlink_inactive").params.at("links"), "7,11");
  EXPECT_EQ(find(all, "foreign_memory_gb").unit, "GB");
  EXPECT_EQ(find(all, "foreign_memory_gb").params.at("pids"), "48211:30.0GB");
  EXPECT_EQ(find(all, "remapped_rows_pending").value, 1);
}

TEST(TelemetryMeasurements, RoundTripRebuildsTheReading) {
  GpuTelemetry rebuilt;
  for (const Measurement& m : telemetry_to_measurements(sample(), "gpu.health")) {
    EXPECT_TRUE(apply_telemetry_measurement(m, rebuilt)) << m.metric;
  }
  const GpuTelemetry original = sample();
  EXPECT_EQ(rebuilt.index, 3);
  EXPECT_EQ(rebuilt.bus_id, original.bus_id);
  EXPECT_EQ(rebuilt.phase, TelemetryPhase::load);
  EXPECT_EQ(rebuilt.temperature_c, original.temperature_c);
  EXPECT_EQ(rebuilt.clock_event_reasons, original.clock_event_reasons);
  EXPECT_EQ(rebuilt.remapped_rows_pending, true);
  EXPECT_EQ(rebuilt.pcie_gen, 4);
  EXPECT_EQ(rebuilt.nvlink_inactive, (std::vector<int>{7, 11}));
  EXPECT_EQ(rebuilt.foreign_pids, "48211:30.0GB");
  EXPECT_FALSE(rebuilt.power_w);
}

TEST(TelemetryMeasurements, OtherMetricsAndFailedReadingsAreNotTelemetry) {
  GpuTelemetry t;
  Measurement perf;
  perf.metric = "bf16_tflops";
  EXPECT_FALSE(apply_telemetry_measurement(perf, t));
  Measurement waived;
  waived.metric = "temperature_c";
  waived.status = MeasurementStatus::waived;
  EXPECT_FALSE(apply_telemetry_measurement(waived, t));
  EXPECT_FALSE(t.temperature_c);
  EXPECT_TRUE(is_telemetry_metric("pcie_gen"));
  EXPECT_FALSE(is_telemetry_metric("busbw"));
}

TEST(TelemetryMeasurements, SpecsDeclareUnitsAndDirections) {
  const auto specs = telemetry_metric_specs();
  auto spec = [&](const std::string& name) {
    return std::find_if(specs.begin(), specs.end(),
                        [&](const MetricSpec& s) { return s.name == name; });
  };
  ASSERT_NE(spec("temperature_c"), specs.end());
  EXPECT_EQ(spec("temperature_c")->info.unit, "C");
  EXPECT_EQ(spec("temperature_c")->info.better, Better::lower);
  EXPECT_EQ(spec("sm_clock_mhz")->info.better, Better::higher);
  EXPECT_EQ(spec("power_w")->info.unit, "W");
  EXPECT_EQ(spec("foreign_memory_gb")->info.unit, "GB");
}

TEST(GpuTelemetry, ClockEventReasonNames) {
  EXPECT_EQ(describe_clock_event_reasons(0), "none");
  EXPECT_EQ(describe_clock_event_reasons(0x1), "idle");
  EXPECT_EQ(describe_clock_event_reasons(0x4 | 0x40), "power-cap,thermal-hw");
  EXPECT_EQ(describe_clock_event_reasons(0x80 | 0x1000), "power-brake,other");
}

TEST(GpuTelemetry, BusIdsAreNormalisedToSysfsForm) {
  EXPECT_EQ(normalize_bus_id("00000000:5D:00.0"), "0000:5d:00.0");
  EXPECT_EQ(normalize_bus_id("0000:5d:00.0"), "0000:5d:00.0");
  EXPECT_EQ(normalize_bus_id("00000001:5D:00.0"), "0001:5d:00.0");
  EXPECT_EQ(normalize_bus_id("00010000:5D:00.0"), "00010000:5d:00.0");  // a domain past 16 bits
}

}  // namespace
}  // namespace fabcheck
