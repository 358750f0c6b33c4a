// Reads this node's GPU telemetry through the process's NVML, for gpu.health (every GPU, at rest)
// and the heavy probes (their own GPU, under load).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/gpu_telemetry.hpp"

namespace fabcheck {

// Every GPU NVML sees. Throws std::runtime_error with NVML's reason when NVML cannot start; a GPU
// that cannot be read is reported through `unreadable` ("GPU 3: NVML: ... GPU is lost").
std::vector<GpuTelemetry> sample_all_gpus(TelemetryPhase phase,
                                          std::vector<std::string>& unreadable);

// The GPU at `bus_id`, or nullopt when NVML is not available or does not know it.
std::optional<GpuTelemetry> sample_gpu(const std::string& bus_id, TelemetryPhase phase);

}  // namespace fabcheck
