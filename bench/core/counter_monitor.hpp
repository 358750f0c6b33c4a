// Error counters a family reads around each heavy probe (IB/RoCE port counters, NVLink and PCIe
// replay counters): the runner reads them before and after the probe on each host's first rank and
// emits the family's growth measurements with the probe, so a counter that climbed during a probe
// that passed its bandwidth still becomes a finding naming the counter, the device and the probe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// device ("mlx5_0/1", "gpu3") -> counter ("counters/symbol_error", "nvlink2.crc_flit") -> value.
using CounterReadings = std::map<std::string, std::map<std::string, std::uint64_t>>;

struct CounterMonitor {
  std::string name;  // "ib ports", "nvml"
  // This host's counters; an empty map where the family has nothing to read. May throw: the
  // runner then leaves this monitor out for that probe.
  std::function<CounterReadings(const RunOptions&)> read;
  // Measurements of what grew (or was reset) from `before` to `after` over `seconds` while `probe`
  // ran; the runner adds params["during"] = probe.
  std::function<std::vector<Measurement>(const CounterReadings& before,
                                         const CounterReadings& after, double seconds)>
      growth;
};

}  // namespace fabcheck

namespace fabcheck {

// Every monitor's readings; nullopt for one that threw (it is then left out for this probe).
std::vector<std::optional<CounterReadings>> read_counter_monitors(
    const std::vector<CounterMonitor>& monitors, const RunOptions& options);

// Reads the monitors again and emits each one's growth since `before`, tagged with the probe that
// ran meanwhile (params "during"), into `sink`.
void emit_counter_growth(const std::vector<CounterMonitor>& monitors,
                         const std::vector<std::optional<CounterReadings>>& before,
                         const RunOptions& options, const std::string& probe, double seconds,
                         MeasurementSink& sink);

}  // namespace fabcheck
