// Telemetry of this node's GPUs through the process's NVML (process_nvml()).
#include "kernels/telemetry_sampling.hpp"

#include <stdexcept>

#include "bench/core/run_processes.hpp"
#include "bench/sys/nvml_library.hpp"
#include "bench/sys/nvml_reader.hpp"

namespace fabcheck {
namespace {

bool visible(unsigned pid) { return pid_visible_here(pid); }

}  // namespace

std::vector<GpuTelemetry> sample_all_gpus(TelemetryPhase phase, const std::set<unsigned>& own_pids,
                                          std::vector<std::string>& unreadable) {
  const NvmlSession& nvml = process_nvml();
  if (!nvml.ok()) throw std::runtime_error(nvml.reason);
  std::vector<GpuTelemetry> gpus;
  for (unsigned index = 0; index < nvml.device_count; ++index) {
    try {
      gpus.push_back(read_gpu_telemetry(*nvml.api, index, phase, own_pids, visible));
    } catch (const std::exception& error) {
      unreadable.push_back("GPU " + std::to_string(index) + ": " + error.what());
    }
  }
  return gpus;
}

std::optional<GpuTelemetry> sample_gpu(const std::string& bus_id, TelemetryPhase phase,
                                       const std::set<unsigned>& own_pids) {
  const NvmlSession& nvml = process_nvml();
  if (!nvml.ok()) return std::nullopt;
  const std::string wanted = normalize_bus_id(bus_id);
  for (const NvmlDeviceIdentity& device : read_nvml_identities(*nvml.api, nvml.device_count)) {
    if (device.bus_id != wanted) continue;
    try {
      return read_gpu_telemetry(*nvml.api, static_cast<unsigned>(device.index), phase, own_pids,
                                visible);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace fabcheck
