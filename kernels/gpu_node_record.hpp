// GpuNodeRecord: a node's GPUs as the judgement rules see them (telemetry idle and under load,
// performance figures), gathered from a run's measurements.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/sys/gpu_telemetry.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

struct GpuRecord {
  int index = 0;
  std::string bus_id;
  std::string model;
  std::optional<GpuTelemetry> idle;  // read before the heavy probes (gpu.health)
  std::optional<GpuTelemetry> load;  // read while a heavy probe ran (gpu.gemm)
  // "gpu.gemm/bf16_tflops" -> the highest value of that figure for this GPU in the run (over
  // sizes and repeats; the peer rules read only figures where higher is better).
  std::map<std::string, double> performance;

  std::string subject() const { return "gpu" + std::to_string(index); }
  // "gpu3 (0000:5d:00.0)"
  std::string describe() const;
};

struct GpuNodeRecord {
  std::string host;
  std::vector<GpuRecord> gpus;  // by index
};

// Groups the gpu.* measurements with status ok by host, then by GPU (bus id, else subject).
// Telemetry metrics go to idle/load by their "phase" param; the rest are performance figures.
// Hosts in order of first appearance. With `performance_figures`, a figure that is neither
// telemetry nor one of those (probe, metric) is left out, as if it were not there.
std::vector<GpuNodeRecord> gpu_nodes_from_measurements(
    const std::vector<Measurement>& measurements,
    const std::vector<std::pair<std::string, std::string>>* performance_figures = nullptr);

}  // namespace fabcheck
