// NVML loaded at run time: dlopen, dlsym of each entry point, nvmlInit, with a reason when not.
#include "bench/sys/nvml_library.hpp"

#include <dlfcn.h>

#include <utility>

#include "bench/sys/shared_library.hpp"

namespace fabcheck {
namespace {

// Resolves `symbol` into `target` (a std::function of the matching signature); false if absent.
template <typename Signature>
bool resolve(void* handle, const char* symbol, std::function<Signature>& target) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) return false;
  target = reinterpret_cast<Signature*>(address);
  return true;
}

// The first of `symbols` the library has (newer name first).
template <typename Signature>
void resolve_any(void* handle, std::initializer_list<const char*> symbols,
                 std::function<Signature>& target) {
  for (const char* symbol : symbols) {
    if (resolve(handle, symbol, target)) return;
  }
}

}  // namespace

std::string nvml_error_text(const NvmlFunctions& api, nvmlReturn_t code) {
  if (api.error_string) {
    const char* text = api.error_string(code);
    if (text != nullptr && *text != '\0') return text;
  }
  return "NVML error " + std::to_string(static_cast<int>(code));
}

NvmlSession load_nvml(const std::string& library) {
  NvmlSession session;
  const std::string shown = library_file_name(library);
  // Never closed: NVML stays loaded for the process, as the driver expects.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    session.reason = "NVML: " + shown + " not found (driver not present)";
    return session;
  }
  auto api = std::make_shared<NvmlFunctions>();
  const std::pair<const char*, bool> required[] = {
      {"nvmlInit_v2", resolve(handle, "nvmlInit_v2", api->init)},
      {"nvmlErrorString", resolve(handle, "nvmlErrorString", api->error_string)},
      {"nvmlDeviceGetCount_v2", resolve(handle, "nvmlDeviceGetCount_v2", api->device_count)},
      {"nvmlDeviceGetHandleByIndex_v2",
       resolve(handle, "nvmlDeviceGetHandleByIndex_v2", api->handle_by_index)},
      {"nvmlDeviceGetName", resolve(handle, "nvmlDeviceGetName", api->name)},
      {"nvmlDeviceGetPciInfo_v3", resolve(handle, "nvmlDeviceGetPciInfo_v3", api->pci_info)},
  };
  for (const auto& [symbol, found] : required) {
    if (!found) {
      session.reason = "NVML: " + shown + " lacks " + symbol + " (driver too old)";
      return session;
    }
  }
  resolve(handle, "nvmlSystemGetDriverVersion", api->driver_version);
  resolve(handle, "nvmlDeviceGetUUID", api->uuid);
  resolve(handle, "nvmlDeviceGetTemperature", api->temperature);
  resolve(handle, "nvmlDeviceGetClockInfo", api->clock);
  resolve(handle, "nvmlDeviceGetMaxClockInfo", api->max_clock);
  resolve_any(
      handle,
      {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
      api->clock_event_reasons);
  resolve(handle, "nvmlDeviceGetPowerUsage", api->power_usage_mw);
  resolve(handle, "nvmlDeviceGetEnforcedPowerLimit", api->power_limit_mw);
  resolve(handle, "nvmlDeviceGetTotalEccErrors", api->total_ecc_errors);
  resolve(handle, "nvmlDeviceGetRetiredPagesPendingStatus", api->retired_pages_pending);
  resolve(handle, "nvmlDeviceGetRemappedRows", api->remapped_rows);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkGeneration", api->pcie_gen);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkGeneration", api->pcie_gen_max);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkWidth", api->pcie_width);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkWidth", api->pcie_width_max);
  resolve(handle, "nvmlDeviceGetNvLinkState", api->nvlink_state);
  // _v3 and _v2 take the same nvmlProcessInfo_v2_t layout.
  resolve_any(
      handle,
      {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"},
      api->compute_processes);
  resolve(handle, "nvmlDeviceGetMemoryInfo", api->memory_info);
  resolve(handle, "nvmlDeviceGetUtilizationRates", api->utilization);
  resolve(handle, "nvmlDeviceGetPersistenceMode", api->persistence_mode);
  resolve(handle, "nvmlDeviceGetVbiosVersion", api->vbios_version);
  resolve_any(handle, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"},
              api->cuda_driver_version);
  resolve(handle, "nvmlSystemGetProcessName", api->process_name);
  resolve(handle, "nvmlDeviceGetRetiredPages", api->retired_pages);
  resolve(handle, "nvmlDeviceGetNvLinkErrorCounter", api->nvlink_error_counter);
  resolve(handle, "nvmlDeviceGetPcieReplayCounter", api->pcie_replay_counter);
  return start_nvml(std::move(api));
}

NvmlSession start_nvml(std::shared_ptr<const NvmlFunctions> api) {
  NvmlSession session;
  const nvmlReturn_t started = api->init();
  if (started != NVML_SUCCESS) {
    session.reason = "NVML: nvmlInit failed: " + nvml_error_text(*api, started) +
                     " (driver broken or not loaded)";
    return session;
  }
  unsigned count = 0;
  const nvmlReturn_t counted = api->device_count(&count);
  if (counted != NVML_SUCCESS) {
    session.reason = "NVML: nvmlDeviceGetCount failed: " + nvml_error_text(*api, counted);
    return session;
  }
  if (api->driver_version) {
    char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    if (api->driver_version(version, sizeof version) == NVML_SUCCESS) {
      session.driver_version = version;
    }
  }
  session.device_count = count;
  session.api = std::move(api);
  return session;
}

const NvmlSession& process_nvml() {
  static const NvmlSession session =
      load_nvml(library_to_open("FABCHECK_NVML_LIBRARY", "libnvidia-ml.so.1"));
  return session;
}

}  // namespace fabcheck
