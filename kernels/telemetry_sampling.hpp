// Reads this node's GPU telemetry through the process's NVML, for gpu.health (every GPU, at rest)
// and the heavy probes (their own GPU, under load).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/sys/gpu_telemetry.hpp"

namespace fabcheck {

// Every GPU NVML sees. `own_pids`: this run's processes on this host (run_pids_on_this_host), whose
// memory is not foreign. Throws std::runtime_error with NVML's reason when NVML cannot start; a GPU
// that cannot be read is reported through `unreadable` ("GPU 3: NVML: ... GPU is lost").
std::vector<GpuTelemetry> sample_all_gpus(TelemetryPhase phase, const std::set<unsigned>& own_pids,
                                          std::vector<std::string>& unreadable);

// The GPU at `bus_id`, or nullopt when NVML is not available or does not know it.
std::optional<GpuTelemetry> sample_gpu(const std::string& bus_id, TelemetryPhase phase,
                                       const std::set<unsigned>& own_pids);

}  // namespace fabcheck
