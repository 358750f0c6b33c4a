// NVML loaded at run time (dlopen of libnvidia-ml.so.1): the entry points as replaceable functions,
// so a node without a driver reports why, and tests substitute a recorded GPU node.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "bench/sys/nvml_api.hpp"

namespace fabcheck {

// NVML entry points. Required ones are always set by load_nvml(); an optional one an older driver
// lacks stays empty and the figure it would give is left unknown.
struct NvmlFunctions {
  // Required.
  std::function<nvmlReturn_t()> init;
  std::function<const char*(nvmlReturn_t)> error_string;
  std::function<nvmlReturn_t(unsigned*)> device_count;
  std::function<nvmlReturn_t(unsigned, nvmlDevice_t*)> handle_by_index;
  std::function<nvmlReturn_t(nvmlDevice_t, char*, unsigned)> name;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlPciInfo_t*)> pci_info;
  // Optional.
  std::function<nvmlReturn_t(char*, unsigned)> driver_version;
  std::function<nvmlReturn_t(nvmlDevice_t, char*, unsigned)> uuid;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned*)> temperature;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlClockType_t, unsigned*)> clock;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlClockType_t, unsigned*)> max_clock;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned long long*)> clock_event_reasons;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> power_usage_mw;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> power_limit_mw;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t,
                             unsigned long long*)>
      total_ecc_errors;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlEnableState_t*)> retired_pages_pending;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)>
      remapped_rows;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> pcie_gen;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> pcie_gen_max;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> pcie_width;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> pcie_width_max;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlEnableState_t*)> nvlink_state;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*, nvmlProcessInfo_t*)> compute_processes;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlMemory_t*)> memory_info;
  // Pre-flight: is the GPU idle and set up, and which firmware and driver does it run.
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)> utilization;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlEnableState_t*)> persistence_mode;
  std::function<nvmlReturn_t(nvmlDevice_t, char*, unsigned)> vbios_version;
  std::function<nvmlReturn_t(int*)> cuda_driver_version;
  std::function<nvmlReturn_t(unsigned, char*, unsigned)> process_name;
  std::function<nvmlReturn_t(nvmlDevice_t, nvmlPageRetirementCause_t, unsigned*,
                             unsigned long long*)>
      retired_pages;
  // Error counters read around heavy probes.
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlNvLinkErrorCounter_t, unsigned long long*)>
      nvlink_error_counter;
  std::function<nvmlReturn_t(nvmlDevice_t, unsigned*)> pcie_replay_counter;
};

// NVML started (nvmlInit succeeded) or the reason it could not be:
//   "NVML: libnvidia-ml.so.1 not found (driver not present)"
//   "NVML: libnvidia-ml.so.1 lacks nvmlInit_v2 (driver too old)"
//   "NVML: nvmlInit failed: Driver Not Loaded (driver broken or not loaded)"
struct NvmlSession {
  std::shared_ptr<const NvmlFunctions> api;  // null when NVML could not start
  std::string reason;
  std::string driver_version;  // "570.124.06", when known
  unsigned device_count = 0;

  bool ok() const { return api != nullptr; }
};

// Opens `library` with dlopen, resolves the entry points and starts NVML. Never throws.
NvmlSession load_nvml(const std::string& library = "libnvidia-ml.so.1");

// Starts NVML through `api` (nvmlInit, driver version, device count). Never throws.
NvmlSession start_nvml(std::shared_ptr<const NvmlFunctions> api);

// This process's NVML: loaded once, on first use, from libnvidia-ml.so.1 (or the file named by
// FABCHECK_NVML_LIBRARY, for testing a broken driver), and kept for the process's lifetime.
const NvmlSession& process_nvml();

// "Driver Not Loaded" for a code, through the library's own nvmlErrorString when there is one.
std::string nvml_error_text(const NvmlFunctions& api, nvmlReturn_t code);

}  // namespace fabcheck
