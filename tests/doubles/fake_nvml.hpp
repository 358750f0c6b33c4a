// A test double of NVML: a recorded GPU node (per-GPU readings) served through NvmlFunctions.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/sys/nvml_library.hpp"

namespace fabcheck::testing {

struct FakeProcess {
  unsigned pid = 0;
  unsigned long long bytes = 0;
  std::string name = "python3";  // what nvmlSystemGetProcessName answers
};

// What one GPU answers; NVML_ERROR_NOT_SUPPORTED where `supported` is false.
struct FakeGpu {
  std::string name = "NVIDIA H100 80GB HBM3";
  std::string bus_id = "00000000:18:00.0";
  std::string uuid = "GPU-00000000-1111-2222-3333-444444444444";
  unsigned temperature = 34, sm_clock = 1980, sm_clock_max = 1980, mem_clock = 2619;
  unsigned power_mw = 655000, power_limit_mw = 700000;
  unsigned long long reasons = 0x4;
  unsigned long long ecc_uncorrected = 0, ecc_corrected = 0;
  bool retired_pending = false;
  unsigned remap_pending = 0, remap_failed = 0;
  unsigned gen = 5, gen_max = 5, width = 16, width_max = 16;
  std::vector<bool> nvlinks = std::vector<bool>(18, true);
  std::vector<FakeProcess> processes;
  unsigned long long memory_total = 85520000000ULL, memory_used = 560000000ULL;
  unsigned utilization = 0;  // % of time a kernel ran
  bool persistence = true;
  std::string vbios = "96.00.89.00.01";
  unsigned retired_sbe = 0, retired_dbe = 0;
  // (link, nvmlNvLinkErrorCounter_t) -> count; links beyond nvlinks.size() are not there.
  std::map<std::pair<unsigned, int>, unsigned long long> nvlink_errors;
  unsigned pcie_replays = 0;
  bool temperature_supported = true;
  bool remap_supported = true;
  bool lost = false;  // handle_by_index fails with GPU_IS_LOST
};

// Device handles are the GPU's index + 1 cast to a pointer.
inline std::shared_ptr<NvmlFunctions> make_fake_nvml(std::shared_ptr<std::vector<FakeGpu>> gpus,
                                                     nvmlReturn_t init_result = NVML_SUCCESS) {
  auto api = std::make_shared<NvmlFunctions>();
  auto gpu_of = [gpus](nvmlDevice_t device) -> FakeGpu& {
    return (*gpus)[reinterpret_cast<std::uintptr_t>(device) - 1];
  };
  api->init = [init_result] { return init_result; };
  api->error_string = [](nvmlReturn_t code) -> const char* {
    switch (code) {
      case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
      case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
      default:
        return "Unknown Error";
    }
  };
  api->device_count = [gpus](unsigned* count) {
    *count = static_cast<unsigned>(gpus->size());
    return NVML_SUCCESS;
  };
  api->handle_by_index = [gpus](unsigned index, nvmlDevice_t* device) {
    if (index >= gpus->size()) return NVML_ERROR_INVALID_ARGUMENT;
    if ((*gpus)[index].lost) return NVML_ERROR_GPU_IS_LOST;
    *device = reinterpret_cast<nvmlDevice_t>(static_cast<std::uintptr_t>(index) + 1);
    return NVML_SUCCESS;
  };
  api->name = [gpu_of](nvmlDevice_t d, char* out, unsigned length) {
    std::strncpy(out, gpu_of(d).name.c_str(), length - 1);
    return NVML_SUCCESS;
  };
  api->uuid = [gpu_of](nvmlDevice_t d, char* out, unsigned length) {
    std::strncpy(out, gpu_of(d).uuid.c_str(), length - 1);
    return NVML_SUCCESS;
  };
  api->pci_info = [gpu_of](nvmlDevice_t d, nvmlPciInfo_t* pci) {
    std::strncpy(pci->busId, gpu_of(d).bus_id.c_str(), sizeof pci->busId - 1);
    return NVML_SUCCESS;
  };
  api->driver_version = [](char* out, unsigned length) {
    std::strncpy(out, "570.124.06", length - 1);
    return NVML_SUCCESS;
  };
  api->temperature = [gpu_of](nvmlDevice_t d, nvmlTemperatureSensors_t, unsigned* value) {
    if (!gpu_of(d).temperature_supported) return NVML_ERROR_NOT_SUPPORTED;
    *value = gpu_of(d).temperature;
    return NVML_SUCCESS;
  };
  api->clock = [gpu_of](nvmlDevice_t d, nvmlClockType_t type, unsigned* value) {
    *value = type == NVML_CLOCK_MEM ? gpu_of(d).mem_clock : gpu_of(d).sm_clock;
    return NVML_SUCCESS;
  };
  api->max_clock = [gpu_of](nvmlDevice_t d, nvmlClockType_t, unsigned* value) {
    *value = gpu_of(d).sm_clock_max;
    return NVML_SUCCESS;
  };
  api->clock_event_reasons = [gpu_of](nvmlDevice_t d, unsigned long long* value) {
    *value = gpu_of(d).reasons;
    return NVML_SUCCESS;
  };
  api->power_usage_mw = [gpu_of](nvmlDevice_t d, unsigned* value) {
    *value = gpu_of(d).power_mw;
    return NVML_SUCCESS;
  };
  api->power_limit_mw = [gpu_of](nvmlDevice_t d, unsigned* value) {
    *value = gpu_of(d).power_limit_mw;
    return NVML_SUCCESS;
  };
  api->total_ecc_errors = [gpu_of](nvmlDevice_t d, nvmlMemoryErrorType_t type, nvmlEccCounterType_t,
                                   unsigned long long* value) {
    *value = type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED ? gpu_of(d).ecc_uncorrected
                                                        : gpu_of(d).ecc_corrected;
    return NVML_SUCCESS;
  };
  api->retired_pages_pending = [gpu_of](nvmlDevice_t d, nvmlEnableState_t* value) {
    *value = gpu_of(d).retired_pending ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
  };
  api->remapped_rows = [gpu_of](nvmlDevice_t d, unsigned* corrected, unsigned* uncorrected,
                                unsigned* pending, unsigned* failed) {
    if (!gpu_of(d).remap_supported) return NVML_ERROR_NOT_SUPPORTED;
    *corrected = 0;
    *uncorrected = 0;
    *pending = gpu_of(d).remap_pending;
    *failed = gpu_of(d).remap_failed;
    return NVML_SUCCESS;
  };
  api->pcie_gen = [gpu_of](nvmlDevice_t d, unsigned* v) {
    *v = gpu_of(d).gen;
    return NVML_SUCCESS;
  };
  api->pcie_gen_max = [gpu_of](nvmlDevice_t d, unsigned* v) {
    *v = gpu_of(d).gen_max;
    return NVML_SUCCESS;
  };
  api->pcie_width = [gpu_of](nvmlDevice_t d, unsigned* v) {
    *v = gpu_of(d).width;
    return NVML_SUCCESS;
  };
  api->pcie_width_max = [gpu_of](nvmlDevice_t d, unsigned* v) {
    *v = gpu_of(d).width_max;
    return NVML_SUCCESS;
  };
  api->nvlink_state = [gpu_of](nvmlDevice_t d, unsigned link, nvmlEnableState_t* active) {
    const auto& links = gpu_of(d).nvlinks;
    if (link >= links.size()) return NVML_ERROR_INVALID_ARGUMENT;
    *active = links[link] ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
  };
  api->compute_processes = [gpu_of](nvmlDevice_t d, unsigned* count, nvmlProcessInfo_t* infos) {
    const auto& processes = gpu_of(d).processes;
    if (*count < processes.size()) {
      *count = static_cast<unsigned>(processes.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (std::size_t i = 0; i < processes.size(); ++i) {
      infos[i] = nvmlProcessInfo_t{};
      infos[i].pid = processes[i].pid;
      infos[i].usedGpuMemory = processes[i].bytes;
    }
    *count = static_cast<unsigned>(processes.size());
    return NVML_SUCCESS;
  };
  api->utilization = [gpu_of](nvmlDevice_t d, nvmlUtilization_t* value) {
    value->gpu = gpu_of(d).utilization;
    value->memory = 0;
    return NVML_SUCCESS;
  };
  api->persistence_mode = [gpu_of](nvmlDevice_t d, nvmlEnableState_t* mode) {
    *mode = gpu_of(d).persistence ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
  };
  api->vbios_version = [gpu_of](nvmlDevice_t d, char* out, unsigned length) {
    std::strncpy(out, gpu_of(d).vbios.c_str(), length - 1);
    return NVML_SUCCESS;
  };
  api->cuda_driver_version = [](int* version) {
    *version = 12040;
    return NVML_SUCCESS;
  };
  api->process_name = [gpus](unsigned pid, char* out, unsigned length) {
    for (const FakeGpu& gpu : *gpus) {
      for (const FakeProcess& process : gpu.processes) {
        if (process.pid != pid) continue;
        std::strncpy(out, process.name.c_str(), length - 1);
        return NVML_SUCCESS;
      }
    }
    return NVML_ERROR_NOT_FOUND;
  };
  api->retired_pages = [gpu_of](nvmlDevice_t d, nvmlPageRetirementCause_t cause, unsigned* count,
                                unsigned long long*) {
    const unsigned pages = cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
                               ? gpu_of(d).retired_dbe
                               : gpu_of(d).retired_sbe;
    const bool fits = *count >= pages;
    *count = pages;
    return fits ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
  };
  api->nvlink_error_counter = [gpu_of](nvmlDevice_t d, unsigned link,
                                       nvmlNvLinkErrorCounter_t counter,
                                       unsigned long long* value) {
    if (link >= gpu_of(d).nvlinks.size()) return NVML_ERROR_INVALID_ARGUMENT;
    const auto found = gpu_of(d).nvlink_errors.find({link, static_cast<int>(counter)});
    *value = found == gpu_of(d).nvlink_errors.end() ? 0 : found->second;
    return NVML_SUCCESS;
  };
  api->pcie_replay_counter = [gpu_of](nvmlDevice_t d, unsigned* value) {
    *value = gpu_of(d).pcie_replays;
    return NVML_SUCCESS;
  };
  api->memory_info = [gpu_of](nvmlDevice_t d, nvmlMemory_t* memory) {
    memory->total = gpu_of(d).memory_total;
    memory->used = gpu_of(d).memory_used;
    memory->free = memory->total - memory->used;
    return NVML_SUCCESS;
  };
  return api;
}

}  // namespace fabcheck::testing
