// Throttle fractions, clock trend and their judgement.
#include "kernels/throttle_analysis.hpp"

#include <algorithm>
#include <cstdio>

#include "bench/sys/gpu_telemetry.hpp"
#include "bench/sys/nvml_api.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

// The figures judge_throttling reads (of any probe that emits them: gpu.gemm's burn).
constexpr const char* kReasonMetric = "throttle_fraction";
constexpr const char* kThermalMetric = "thermal_throttle_fraction";
constexpr const char* kHwSlowdownMetric = "hw_slowdown_fraction";
constexpr const char* kClockTrendMetric = "clock_end_vs_start";

// Reason bit -> name (describe_clock_event_reasons' names; later bits by number).
std::string reason_name(std::uint64_t bit) {
  const std::string name = describe_clock_event_reasons(bit);
  if (name != "other") return name;
  if (bit == nvml_reasons::kBoardLimit) return "board-limit";
  if (bit == nvml_reasons::kReliability) return "reliability";
  char text[32];
  std::snprintf(text, sizeof text, "bit-0x%llx", static_cast<unsigned long long>(bit));
  return text;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

}  // namespace

ThrottleSummary summarize_throttling(const ClockSeries& series) {
  ThrottleSummary summary;
  if (series.size() < 2) return summary;
  summary.samples = series.size();
  summary.duration_s = series.back().t_s - series.front().t_s;
  std::map<std::uint64_t, std::size_t> bit_counts;
  std::size_t with_reasons = 0, thermal = 0, hw = 0, power = 0;
  double power_sum = 0;
  std::size_t power_count = 0;
  for (const ClockSample& sample : series) {
    if (sample.temperature_c)
      summary.temperature_max_c = std::max(summary.temperature_max_c, *sample.temperature_c);
    if (sample.power_w) {
      power_sum += *sample.power_w;
      ++power_count;
    }
    if (!sample.reasons) continue;
    ++with_reasons;
    const std::uint64_t reasons = *sample.reasons;
    for (int bit = 0; bit < 64; ++bit) {
      if (reasons & (std::uint64_t{1} << bit)) ++bit_counts[std::uint64_t{1} << bit];
    }
    thermal +=
        (reasons & (nvml_reasons::kSwThermalSlowdown | nvml_reasons::kHwThermalSlowdown)) != 0;
    hw += (reasons & (nvml_reasons::kHwSlowdown | nvml_reasons::kHwPowerBrakeSlowdown)) != 0;
    power += (reasons & nvml_reasons::kSwPowerCap) != 0;
  }
  if (with_reasons > 0) {
    const double total = static_cast<double>(with_reasons);
    for (const auto& [bit, count] : bit_counts)
      summary.reason_fraction[reason_name(bit)] = static_cast<double>(count) / total;
    summary.thermal_fraction = static_cast<double>(thermal) / total;
    summary.hw_slowdown_fraction = static_cast<double>(hw) / total;
    summary.power_cap_fraction = static_cast<double>(power) / total;
  }
  if (power_count > 0) summary.power_mean_w = power_sum / static_cast<double>(power_count);
  const std::size_t edge = std::max<std::size_t>(1, series.size() / 10);
  std::vector<double> first, last;
  for (std::size_t i = 0; i < edge; ++i) {
    if (series[i].sm_mhz) first.push_back(*series[i].sm_mhz);
    if (series[series.size() - 1 - i].sm_mhz) last.push_back(*series[series.size() - 1 - i].sm_mhz);
  }
  summary.clock_start_mhz = median(first);
  summary.clock_end_mhz = median(last);
  return summary;
}

std::vector<Measurement> throttle_measurements(const ThrottleSummary& summary,
                                               const GpuLabel& label, const std::string& probe) {
  std::vector<Measurement> out;
  if (summary.samples == 0) return out;
  auto add = [&](const std::string& metric, double value, const char* unit) -> Measurement& {
    Measurement m = gpu_measurement(label, probe, metric, value, unit);
    m.params["samples"] = std::to_string(summary.samples);
    m.params["seconds"] = fixed(summary.duration_s, 1);
    out.push_back(std::move(m));
    return out.back();
  };
  for (const auto& [reason, fraction] : summary.reason_fraction)
    add("throttle_fraction", fraction, "fraction").params["reason"] = reason;
  add("thermal_throttle_fraction", summary.thermal_fraction, "fraction");
  add("hw_slowdown_fraction", summary.hw_slowdown_fraction, "fraction");
  add("power_cap_fraction", summary.power_cap_fraction, "fraction");
  add("sm_clock_start_mhz", summary.clock_start_mhz, "MHz");
  add("sm_clock_end_mhz", summary.clock_end_mhz, "MHz");
  if (summary.clock_start_mhz > 0) {
    Measurement& ratio =
        add("clock_end_vs_start", summary.clock_end_mhz / summary.clock_start_mhz, "ratio");
    ratio.params["start_mhz"] = fixed(summary.clock_start_mhz, 0);
    ratio.params["end_mhz"] = fixed(summary.clock_end_mhz, 0);
  }
  add("temperature_max_c", summary.temperature_max_c, "C");
  add("power_mean_w", summary.power_mean_w, "W");
  return out;
}

std::vector<MetricSpec> throttle_metric_specs() {
  return {{"throttle_fraction", {"fraction", Better::lower}},
          {"thermal_throttle_fraction", {"fraction", Better::lower}},
          {"hw_slowdown_fraction", {"fraction", Better::lower}},
          {"power_cap_fraction", {"fraction", Better::lower}},
          {"sm_clock_start_mhz", {"MHz", Better::higher}},
          {"sm_clock_end_mhz", {"MHz", Better::higher}},
          {"clock_end_vs_start", {"ratio", Better::higher}},
          {"temperature_max_c", {"C", Better::lower}},
          {"power_mean_w", {"W", Better::lower}}};
}

std::vector<FigureRef> throttling_judge_reads() {
  std::vector<FigureRef> reads;
  for (const char* metric : {kReasonMetric, kThermalMetric, kHwSlowdownMetric, kClockTrendMetric})
    reads.push_back({"*", metric});
  return reads;
}

std::vector<Finding> judge_throttling(const std::vector<Measurement>& measurements,
                                      const ThrottlePolicy& policy) {
  // Reasons per GPU, for the messages.
  std::map<std::string, std::string> reasons_of;
  for (const Measurement& m : measurements) {
    if (m.metric == kReasonMetric && m.value > 0) {
      std::string& text = reasons_of[m.host + " " + m.subject];
      text +=
          (text.empty() ? "" : ", ") + param_of(m, "reason") + " " + fixed(100 * m.value, 0) + "%";
    }
  }
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    if (m.status != MeasurementStatus::ok) continue;
    // Only the burn's own figures (a fleet evaluation passes millions of others through here).
    if (m.metric != kThermalMetric && m.metric != kHwSlowdownMetric &&
        m.metric != kClockTrendMetric) {
      continue;
    }
    const std::string gpu = "GPU " + m.subject + " (" + param_of(m, "bus_id") + ")";
    const std::string over = " of a " + param_of(m, "seconds") + " s burn (" +
                             param_of(m, "samples") + " samples; " +
                             reasons_of[m.host + " " + m.subject] + ")";
    const FindingAdder add(m, out, "NVML clock-event reasons sampled through the burn");
    if (m.metric == kThermalMetric && m.value > policy.thermal_warn) {
      add(m.value > policy.thermal_fail ? Severity::fail : Severity::warn, policy.thermal_warn,
          gpu + " is a hot GPU: thermally throttled " + fixed(100 * m.value, 1) + "%" + over,
          "check its airflow and fans, the inlet temperature, the heatsink and thermal paste "
          "(nvidia-smi -q -d TEMPERATURE,PERFORMANCE); it drags every rank of a job");
    } else if (m.metric == kHwSlowdownMetric && m.value > policy.hw_slowdown_fail) {
      add(Severity::fail, policy.hw_slowdown_fail,
          gpu + " was slowed by hardware (HW slowdown or power brake) " + fixed(100 * m.value, 1) +
              "%" + over,
          "the board or the system pulled the clock: check the power supplies and cabling, the "
          "BMC's power-brake events and the GPU's temperature; replace the GPU if it persists");
    } else if (m.metric == kClockTrendMetric && m.value > 0 && m.value < policy.clock_drop_warn) {
      add(Severity::warn, policy.clock_drop_warn,
          gpu + " lost clock during the burn: " + param_of(m, "start_mhz") + " MHz at the start, " +
              param_of(m, "end_mhz") + " MHz at the end" + over,
          "a clock that sinks under sustained load is heat or power: compare its temperature and "
          "power with its peers'");
    }
  }
  return out;
}

}  // namespace fabcheck
