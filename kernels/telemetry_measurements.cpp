// GPU telemetry <-> measurements, from one table of metrics (name, unit, direction, field).
#include "kernels/telemetry_measurements.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <sstream>

namespace fabcheck {
namespace {

struct TelemetryMetric {
  const char* name;
  const char* unit;
  Better better;
  std::function<std::optional<double>(const GpuTelemetry&)> read;
  std::function<void(GpuTelemetry&, double)> write;
};

template <typename T>
std::optional<double> widen(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  return static_cast<double>(*value);
}

std::optional<double> flag(const std::optional<bool>& value) {
  if (!value) return std::nullopt;
  return *value ? 1.0 : 0.0;
}

const std::vector<TelemetryMetric>& telemetry_metrics() {
  using T = GpuTelemetry;
  static const std::vector<TelemetryMetric> kMetrics = {
      {"temperature_c", "C", Better::lower, [](const T& t) { return t.temperature_c; },
       [](T& t, double v) { t.temperature_c = v; }},
      {"sm_clock_mhz", "MHz", Better::higher, [](const T& t) { return t.sm_clock_mhz; },
       [](T& t, double v) { t.sm_clock_mhz = v; }},
      {"sm_clock_max_mhz", "MHz", Better::higher, [](const T& t) { return t.sm_clock_max_mhz; },
       [](T& t, double v) { t.sm_clock_max_mhz = v; }},
      {"mem_clock_mhz", "MHz", Better::higher, [](const T& t) { return t.mem_clock_mhz; },
       [](T& t, double v) { t.mem_clock_mhz = v; }},
      {"power_w", "W", Better::lower, [](const T& t) { return t.power_w; },
       [](T& t, double v) { t.power_w = v; }},
      {"power_limit_w", "W", Better::higher, [](const T& t) { return t.power_limit_w; },
       [](T& t, double v) { t.power_limit_w = v; }},
      {"clock_event_reasons", "count", Better::lower,
       [](const T& t) { return widen(t.clock_event_reasons); },
       [](T& t, double v) { t.clock_event_reasons = static_cast<std::uint64_t>(v); }},
      {"ecc_uncorrected_volatile", "count", Better::lower,
       [](const T& t) { return t.ecc_uncorrected_volatile; },
       [](T& t, double v) { t.ecc_uncorrected_volatile = v; }},
      {"ecc_corrected_volatile", "count", Better::lower,
       [](const T& t) { return t.ecc_corrected_volatile; },
       [](T& t, double v) { t.ecc_corrected_volatile = v; }},
      {"retired_pages_pending", "count", Better::lower,
       [](const T& t) { return flag(t.retired_pages_pending); },
       [](T& t, double v) { t.retired_pages_pending = v != 0; }},
      {"remapped_rows_pending", "count", Better::lower,
       [](const T& t) { return flag(t.remapped_rows_pending); },
       [](T& t, double v) { t.remapped_rows_pending = v != 0; }},
      {"row_remap_failure", "count", Better::lower,
       [](const T& t) { return flag(t.row_remap_failure); },
       [](T& t, double v) { t.row_remap_failure = v != 0; }},
      {"pcie_gen", "count", Better::higher, [](const T& t) { return widen(t.pcie_gen); },
       [](T& t, double v) { t.pcie_gen = static_cast<int>(v); }},
      {"pcie_gen_max", "count", Better::higher, [](const T& t) { return widen(t.pcie_gen_max); },
       [](T& t, double v) { t.pcie_gen_max = static_cast<int>(v); }},
      {"pcie_width", "count", Better::higher, [](const T& t) { return widen(t.pcie_width); },
       [](T& t, double v) { t.pcie_width = static_cast<int>(v); }},
      {"pcie_width_max", "count", Better::higher,
       [](const T& t) { return widen(t.pcie_width_max); },
       [](T& t, double v) { t.pcie_width_max = static_cast<int>(v); }},
      {"nvlink_links", "count", Better::higher, [](const T& t) { return widen(t.nvlink_links); },
       [](T& t, double v) { t.nvlink_links = static_cast<int>(v); }},
      {"nvlink_inactive", "count", Better::lower,
       [](const T& t) -> std::optional<double> {
         if (!t.nvlink_links) return std::nullopt;
         return static_cast<double>(t.nvlink_inactive.size());
       },
       // The link numbers come from params "links"; see apply_telemetry_measurement.
       [](T&, double) {}},
      {"memory_used_gb", "GB", Better::lower, [](const T& t) { return t.memory_used_gb; },
       [](T& t, double v) { t.memory_used_gb = v; }},
      {"memory_total_gb", "GB", Better::higher, [](const T& t) { return t.memory_total_gb; },
       [](T& t, double v) { t.memory_total_gb = v; }},
      {"foreign_memory_gb", "GB", Better::lower, [](const T& t) { return t.foreign_memory_gb; },
       [](T& t, double v) { t.foreign_memory_gb = v; }},
  };
  return kMetrics;
}

std::string join_ints(const std::vector<int>& values) {
  std::string out;
  for (int value : values) out += (out.empty() ? "" : ",") + std::to_string(value);
  return out;
}

std::vector<int> split_ints(const std::string& text) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) values.push_back(std::atoi(item.c_str()));
  }
  return values;
}

}  // namespace

std::vector<MetricSpec> telemetry_metric_specs() {
  std::vector<MetricSpec> specs;
  for (const TelemetryMetric& metric : telemetry_metrics()) {
    specs.push_back({metric.name, {metric.unit, metric.better}});
  }
  return specs;
}

bool is_telemetry_metric(const std::string& metric) {
  const auto& metrics = telemetry_metrics();
  return std::any_of(metrics.begin(), metrics.end(),
                     [&](const TelemetryMetric& m) { return metric == m.name; });
}

std::vector<Measurement> telemetry_to_measurements(const GpuTelemetry& t,
                                                   const std::string& probe) {
  std::vector<Measurement> out;
  for (const TelemetryMetric& metric : telemetry_metrics()) {
    const std::optional<double> value = metric.read(t);
    if (!value) continue;
    Measurement m;
    m.probe = probe;
    m.metric = metric.name;
    m.value = *value;
    m.unit = metric.unit;
    m.subject = "gpu" + std::to_string(t.index);
    m.params["phase"] = to_string(t.phase);
    if (!t.bus_id.empty()) m.params["bus_id"] = t.bus_id;
    if (!t.model.empty()) m.params["model"] = t.model;
    if (!t.uuid.empty()) m.params["uuid"] = t.uuid;
    const std::string name = metric.name;
    if (name == "clock_event_reasons") {
      m.params["reasons"] = describe_clock_event_reasons(*t.clock_event_reasons);
    } else if (name == "nvlink_inactive" && !t.nvlink_inactive.empty()) {
      m.params["links"] = join_ints(t.nvlink_inactive);
    } else if (name == "foreign_memory_gb" && !t.foreign_pids.empty()) {
      m.params["pids"] = t.foreign_pids;
    }
    out.push_back(std::move(m));
  }
  return out;
}

TelemetryPhase measurement_phase(const Measurement& measurement) {
  return param_of(measurement, "phase") == "load" ? TelemetryPhase::load : TelemetryPhase::idle;
}

bool apply_telemetry_measurement(const Measurement& m, GpuTelemetry& t) {
  if (m.status != MeasurementStatus::ok) return false;
  const auto& metrics = telemetry_metrics();
  const auto metric =
      std::find_if(metrics.begin(), metrics.end(),
                   [&](const TelemetryMetric& info) { return m.metric == info.name; });
  if (metric == metrics.end()) return false;
  if (m.subject.rfind("gpu", 0) == 0) t.index = std::atoi(m.subject.c_str() + 3);
  t.phase = measurement_phase(m);
  if (const std::string bus = param_of(m, "bus_id"); !bus.empty()) t.bus_id = bus;
  if (const std::string model = param_of(m, "model"); !model.empty()) t.model = model;
  if (const std::string uuid = param_of(m, "uuid"); !uuid.empty()) t.uuid = uuid;
  metric->write(t, m.value);
  if (m.metric == "nvlink_inactive") {
    t.nvlink_inactive = split_ints(param_of(m, "links"));
    // A count without the link numbers still says how many are down.
    while (t.nvlink_inactive.size() < static_cast<std::size_t>(m.value)) {
      t.nvlink_inactive.push_back(-1);
    }
  } else if (m.metric == "foreign_memory_gb") {
    t.foreign_pids = param_of(m, "pids");
  }
  return true;
}

}  // namespace fabcheck
