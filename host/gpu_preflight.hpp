// The GPUs' part of node.preflight: is each GPU idle (no other process on it, no utilisation, no
// memory held), set up (persistence mode) and free of pending memory repairs, and which VBIOS,
// driver and CUDA it runs. Read through the same NVML reader as gpu.health, so "foreign process"
// means the same thing in both.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/sys/gpu_telemetry.hpp"
#include "bench/sys/nvml_library.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

struct GpuPreflight {
  GpuTelemetry telemetry;  // identity, memory, foreign processes, ECC, retirement and remapping
  std::optional<double> utilization_pct;
  std::optional<bool> persistence_mode;
  std::string vbios;
  std::optional<unsigned> retired_pages_sbe;      // pages retired for repeated single-bit errors
  std::optional<unsigned> retired_pages_dbe;      // and for double-bit errors
  std::map<unsigned, std::string> process_names;  // of the foreign processes: pid -> command
};

// Every GPU NVML sees; one that cannot be read goes to `unreadable` ("GPU 3: ... GPU is lost").
// `own_pids` and `pid_visible` as read_gpu_telemetry takes them: this run's ranks are not foreign.
std::vector<GpuPreflight> read_gpu_preflight(const NvmlFunctions& api, unsigned device_count,
                                             const std::set<unsigned>& own_pids,
                                             const std::function<bool(unsigned)>& pid_visible,
                                             std::vector<std::string>& unreadable);

// The CUDA version the driver supports ("12.4"), "" when NVML does not say.
std::string nvml_cuda_version(const NvmlFunctions& api);

// node.preflight measurements per GPU (subject "gpu<N>", params bus_id and model):
// foreign_processes (params processes "4121 python3 30.0 GB; ..."), utilization (%),
// memory_used (GB, params memory_total_gb), persistence_mode (1/0), retired_pages (params sbe,
// dbe), retired_pages_pending, row_remap_pending and row_remap_failure (1/0), each where NVML
// answers.
std::vector<Measurement> gpu_preflight_measurements(const std::vector<GpuPreflight>& gpus,
                                                    const std::string& probe);

}  // namespace fabcheck
