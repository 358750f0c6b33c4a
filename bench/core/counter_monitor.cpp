// Reading the counter monitors around a heavy probe and emitting what grew during it.
#include "bench/core/counter_monitor.hpp"

#include <cstdio>

namespace fabcheck {

std::vector<std::optional<CounterReadings>> read_counter_monitors(
    const std::vector<CounterMonitor>& monitors, const RunOptions& options) {
  std::vector<std::optional<CounterReadings>> readings;
  for (const CounterMonitor& monitor : monitors) {
    try {
      readings.emplace_back(monitor.read(options));
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabcheck: %s counters not read: %s\n", monitor.name.c_str(),
                   error.what());
      readings.emplace_back(std::nullopt);
    }
  }
  return readings;
}

void emit_counter_growth(const std::vector<CounterMonitor>& monitors,
                         const std::vector<std::optional<CounterReadings>>& before,
                         const RunOptions& options, const std::string& probe, double seconds,
                         MeasurementSink& sink) {
  const auto after = read_counter_monitors(monitors, options);
  for (std::size_t i = 0; i < monitors.size() && i < before.size(); ++i) {
    if (!before[i] || !after[i] || before[i]->empty()) continue;
    for (Measurement& m : monitors[i].growth(*before[i], *after[i], seconds)) {
      m.params["during"] = probe;
      sink.emit(std::move(m));
    }
  }
}

}  // namespace fabcheck
