// GPU pre-flight readings through NVML and their measurements.
#include "host/gpu_preflight.hpp"

#include <cstdio>
#include <fstream>

#include "bench/sys/nvml_reader.hpp"

namespace fabcheck {
namespace {

// The command of `pid`: NVML's answer, else /proc/<pid>/comm, else "?" (another pid namespace).
std::string process_name(const NvmlFunctions& api, unsigned pid) {
  if (api.process_name) {
    char name[256] = {};
    if (api.process_name(pid, name, sizeof name) == NVML_SUCCESS && name[0] != '\0') {
      std::string text = name;
      const std::size_t slash = text.rfind('/');
      return slash == std::string::npos ? text : text.substr(slash + 1);
    }
  }
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string text;
  if (comm && std::getline(comm, text) && !text.empty()) return text;
  return "?";
}

std::optional<unsigned> retired_count(const NvmlFunctions& api, nvmlDevice_t device,
                                      nvmlPageRetirementCause_t cause) {
  if (!api.retired_pages) return std::nullopt;
  unsigned count = 0;
  // A zero-sized ask returns the count (SUCCESS when there are none, INSUFFICIENT_SIZE otherwise).
  const nvmlReturn_t asked = api.retired_pages(device, cause, &count, nullptr);
  if (asked != NVML_SUCCESS && asked != NVML_ERROR_INSUFFICIENT_SIZE) return std::nullopt;
  return count;
}

Measurement gpu_measurement_of(const GpuPreflight& gpu, const std::string& probe,
                               const char* metric, double value, const char* unit) {
  Measurement m =
      make_measurement(probe, metric, value, unit, "gpu" + std::to_string(gpu.telemetry.index));
  m.params["bus_id"] = gpu.telemetry.bus_id;
  m.params["model"] = gpu.telemetry.model;
  return m;
}

}  // namespace

std::vector<GpuPreflight> read_gpu_preflight(const NvmlFunctions& api, unsigned device_count,
                                             const std::set<unsigned>& own_pids,
                                             const std::function<bool(unsigned)>& pid_visible,
                                             std::vector<std::string>& unreadable) {
  std::vector<GpuPreflight> gpus;
  for (unsigned index = 0; index < device_count; ++index) {
    GpuPreflight gpu;
    try {
      gpu.telemetry = read_gpu_telemetry(api, index, TelemetryPhase::idle, own_pids, pid_visible);
    } catch (const std::exception& error) {
      unreadable.push_back("GPU " + std::to_string(index) + ": " + error.what());
      continue;
    }
    nvmlDevice_t device = nullptr;
    if (api.handle_by_index(index, &device) != NVML_SUCCESS) {
      gpus.push_back(std::move(gpu));
      continue;
    }
    if (api.utilization) {
      nvmlUtilization_t utilization{};
      if (api.utilization(device, &utilization) == NVML_SUCCESS)
        gpu.utilization_pct = utilization.gpu;
    }
    if (api.persistence_mode) {
      nvmlEnableState_t mode = NVML_FEATURE_DISABLED;
      if (api.persistence_mode(device, &mode) == NVML_SUCCESS)
        gpu.persistence_mode = mode == NVML_FEATURE_ENABLED;
    }
    if (api.vbios_version) {
      char text[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE] = {};
      if (api.vbios_version(device, text, sizeof text) == NVML_SUCCESS) gpu.vbios = text;
    }
    gpu.retired_pages_sbe =
        retired_count(api, device, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
    gpu.retired_pages_dbe =
        retired_count(api, device, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    for (const GpuProcess& process : gpu.telemetry.foreign_processes) {
      gpu.process_names[process.pid] =
          process.other_pid_namespace ? "(other pid namespace)" : process_name(api, process.pid);
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

std::string nvml_cuda_version(const NvmlFunctions& api) {
  int code = 0;
  if (!api.cuda_driver_version || api.cuda_driver_version(&code) != NVML_SUCCESS || code <= 0)
    return "";
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

std::vector<Measurement> gpu_preflight_measurements(const std::vector<GpuPreflight>& gpus,
                                                    const std::string& probe) {
  std::vector<Measurement> out;
  for (const GpuPreflight& gpu : gpus) {
    const GpuTelemetry& t = gpu.telemetry;
    Measurement processes = gpu_measurement_of(
        gpu, probe, "foreign_processes", static_cast<double>(t.foreign_processes.size()), "count");
    std::string listed;
    for (const GpuProcess& process : t.foreign_processes) {
      char entry[64];
      std::snprintf(entry, sizeof entry, " %.1f GB", process.memory_gb);
      const auto name = gpu.process_names.find(process.pid);
      listed += (listed.empty() ? "" : "; ") + std::to_string(process.pid) + " " +
                (name == gpu.process_names.end() ? std::string("?") : name->second) + entry;
    }
    if (!listed.empty()) processes.params["processes"] = listed;
    out.push_back(std::move(processes));
    if (gpu.utilization_pct)
      out.push_back(gpu_measurement_of(gpu, probe, "utilization", *gpu.utilization_pct, "%"));
    if (t.memory_used_gb) {
      Measurement memory = gpu_measurement_of(gpu, probe, "memory_used", *t.memory_used_gb, "GB");
      if (t.memory_total_gb) {
        char total[32];
        std::snprintf(total, sizeof total, "%.1f", *t.memory_total_gb);
        memory.params["memory_total_gb"] = total;
      }
      out.push_back(std::move(memory));
    }
    if (gpu.persistence_mode) {
      out.push_back(gpu_measurement_of(gpu, probe, "persistence_mode",
                                       *gpu.persistence_mode ? 1 : 0, "bool"));
    }
    if (gpu.retired_pages_sbe || gpu.retired_pages_dbe) {
      const unsigned sbe = gpu.retired_pages_sbe.value_or(0);
      const unsigned dbe = gpu.retired_pages_dbe.value_or(0);
      Measurement retired = gpu_measurement_of(gpu, probe, "retired_pages", sbe + dbe, "count");
      retired.params["sbe"] = std::to_string(sbe);
      retired.params["dbe"] = std::to_string(dbe);
      out.push_back(std::move(retired));
    }
    auto flag = [&](const char* metric, const std::optional<bool>& value) {
      if (value) out.push_back(gpu_measurement_of(gpu, probe, metric, *value ? 1 : 0, "bool"));
    };
    flag("retired_pages_pending", t.retired_pages_pending);
    flag("row_remap_pending", t.remapped_rows_pending);
    flag("row_remap_failure", t.row_remap_failure);
  }
  return out;
}

}  // namespace fabcheck
