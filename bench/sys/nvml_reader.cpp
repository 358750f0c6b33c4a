// Reads GpuTelemetry through NVML entry points, leaving unknown what the driver does not answer.
#include "bench/sys/nvml_reader.hpp"

#include <cstdio>
#include <stdexcept>

namespace fabcheck {
namespace {

constexpr double kBytesPerGb = 1e9;

// Asks `query` for one unsigned figure; nullopt when absent or refused.
template <typename Query, typename... Args>
std::optional<unsigned> ask_unsigned(const Query& query, Args... args) {
  if (!query) return std::nullopt;
  unsigned value = 0;
  if (query(args..., &value) != NVML_SUCCESS) return std::nullopt;
  return value;
}

std::optional<int> as_int(std::optional<unsigned> value) {
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}

std::optional<double> as_double(std::optional<unsigned> value, double scale = 1.0) {
  if (!value) return std::nullopt;
  return static_cast<double>(*value) * scale;
}

nvmlDevice_t open_device(const NvmlFunctions& api, unsigned index) {
  nvmlDevice_t device = nullptr;
  const nvmlReturn_t opened = api.handle_by_index(index, &device);
  if (opened != NVML_SUCCESS) {
    throw std::runtime_error("NVML: cannot open GPU " + std::to_string(index) + ": " +
                             nvml_error_text(api, opened));
  }
  return device;
}

void read_identity(const NvmlFunctions& api, nvmlDevice_t device, std::string& model,
                   std::string& bus_id, std::string& uuid) {
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  if (api.name(device, name, sizeof name) == NVML_SUCCESS) model = name;
  nvmlPciInfo_t pci{};
  if (api.pci_info(device, &pci) == NVML_SUCCESS) bus_id = normalize_bus_id(pci.busId);
  if (api.uuid) {
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    if (api.uuid(device, text, sizeof text) == NVML_SUCCESS) uuid = text;
  }
}

void read_ecc(const NvmlFunctions& api, nvmlDevice_t device, GpuTelemetry& t) {
  if (api.total_ecc_errors) {
    unsigned long long count = 0;
    if (api.total_ecc_errors(device, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                             &count) == NVML_SUCCESS) {
      t.ecc_uncorrected_volatile = static_cast<double>(count);
    }
    if (api.total_ecc_errors(device, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &count) ==
        NVML_SUCCESS) {
      t.ecc_corrected_volatile = static_cast<double>(count);
    }
  }
  if (api.retired_pages_pending) {
    nvmlEnableState_t pending = NVML_FEATURE_DISABLED;
    if (api.retired_pages_pending(device, &pending) == NVML_SUCCESS) {
      t.retired_pages_pending = pending == NVML_FEATURE_ENABLED;
    }
  }
  if (api.remapped_rows) {
    unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
    if (api.remapped_rows(device, &corrected, &uncorrected, &pending, &failed) == NVML_SUCCESS) {
      t.remapped_rows_pending = pending != 0;
      t.row_remap_failure = failed != 0;
    }
  }
}

void read_nvlinks(const NvmlFunctions& api, nvmlDevice_t device, GpuTelemetry& t) {
  if (!api.nvlink_state) return;
  int links = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active = NVML_FEATURE_DISABLED;
    const nvmlReturn_t asked = api.nvlink_state(device, link, &active);
    // Links past the last one the GPU has answer NOT_SUPPORTED or INVALID_ARGUMENT.
    if (asked != NVML_SUCCESS) continue;
    ++links;
    if (active != NVML_FEATURE_ENABLED) t.nvlink_inactive.push_back(static_cast<int>(link));
  }
  if (links > 0) t.nvlink_links = links;
}

void read_memory(const NvmlFunctions& api, nvmlDevice_t device, const std::set<unsigned>& own_pids,
                 const std::function<bool(unsigned)>& pid_visible, GpuTelemetry& t) {
  if (api.memory_info) {
    nvmlMemory_t memory{};
    if (api.memory_info(device, &memory) == NVML_SUCCESS) {
      t.memory_total_gb = static_cast<double>(memory.total) / kBytesPerGb;
      t.memory_used_gb = static_cast<double>(memory.used) / kBytesPerGb;
    }
  }
  if (!api.compute_processes) return;
  // Asked with room for many; a busier GPU answers INSUFFICIENT_SIZE with the count it needs.
  std::vector<nvmlProcessInfo_t> processes(64);
  unsigned count = static_cast<unsigned>(processes.size());
  nvmlReturn_t asked = api.compute_processes(device, &count, processes.data());
  if (asked == NVML_ERROR_INSUFFICIENT_SIZE) {
    processes.resize(count + 16);
    count = static_cast<unsigned>(processes.size());
    asked = api.compute_processes(device, &count, processes.data());
  }
  if (asked != NVML_SUCCESS) return;
  double foreign_bytes = 0;
  for (unsigned i = 0; i < count && i < processes.size(); ++i) {
    const nvmlProcessInfo_t& process = processes[i];
    if (own_pids.count(process.pid) != 0) continue;
    // NVML_VALUE_NOT_AVAILABLE (all ones) when the driver cannot tell.
    const double bytes =
        process.usedGpuMemory == ~0ULL ? 0.0 : static_cast<double>(process.usedGpuMemory);
    foreign_bytes += bytes;
    const bool elsewhere = pid_visible && !pid_visible(process.pid);
    t.foreign_processes.push_back({process.pid, bytes / kBytesPerGb, elsewhere});
    char entry[96];
    std::snprintf(entry, sizeof entry, "%u%s:%.1fGB", process.pid,
                  elsewhere ? "(other pid namespace)" : "", bytes / kBytesPerGb);
    if (!t.foreign_pids.empty()) t.foreign_pids += ',';
    t.foreign_pids += entry;
  }
  t.foreign_memory_gb = foreign_bytes / kBytesPerGb;
}

}  // namespace

std::vector<NvmlDeviceIdentity> read_nvml_identities(const NvmlFunctions& api, unsigned count) {
  std::vector<NvmlDeviceIdentity> devices;
  for (unsigned index = 0; index < count; ++index) {
    nvmlDevice_t device = nullptr;
    if (api.handle_by_index(index, &device) != NVML_SUCCESS) continue;
    NvmlDeviceIdentity identity;
    identity.index = static_cast<int>(index);
    read_identity(api, device, identity.model, identity.bus_id, identity.uuid);
    devices.push_back(std::move(identity));
  }
  return devices;
}

GpuTelemetry read_gpu_telemetry(const NvmlFunctions& api, unsigned index, TelemetryPhase phase,
                                const std::set<unsigned>& own_pids,
                                const std::function<bool(unsigned)>& pid_visible) {
  const nvmlDevice_t device = open_device(api, index);
  GpuTelemetry t;
  t.index = static_cast<int>(index);
  t.phase = phase;
  read_identity(api, device, t.model, t.bus_id, t.uuid);
  t.temperature_c = as_double(ask_unsigned(api.temperature, device, NVML_TEMPERATURE_GPU));
  t.sm_clock_mhz = as_double(ask_unsigned(api.clock, device, NVML_CLOCK_SM));
  t.sm_clock_max_mhz = as_double(ask_unsigned(api.max_clock, device, NVML_CLOCK_SM));
  t.mem_clock_mhz = as_double(ask_unsigned(api.clock, device, NVML_CLOCK_MEM));
  t.power_w = as_double(ask_unsigned(api.power_usage_mw, device), 1e-3);
  t.power_limit_w = as_double(ask_unsigned(api.power_limit_mw, device), 1e-3);
  if (api.clock_event_reasons) {
    unsigned long long reasons = 0;
    if (api.clock_event_reasons(device, &reasons) == NVML_SUCCESS) t.clock_event_reasons = reasons;
  }
  read_ecc(api, device, t);
  t.pcie_gen = as_int(ask_unsigned(api.pcie_gen, device));
  t.pcie_gen_max = as_int(ask_unsigned(api.pcie_gen_max, device));
  t.pcie_width = as_int(ask_unsigned(api.pcie_width, device));
  t.pcie_width_max = as_int(ask_unsigned(api.pcie_width_max, device));
  read_nvlinks(api, device, t);
  read_memory(api, device, own_pids, pid_visible, t);
  return t;
}

}  // namespace fabcheck
