// GPU link error counters through NVML: reading, growth between two readings, judgement.
#include "kernels/gpu_error_counters.hpp"

#include <cstdio>

#include "bench/sys/gpu_telemetry.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.health";
constexpr const char* kDeltaMetric = "error_counter_delta";
constexpr const char* kBusKey = "bus_id:";

struct NvlinkCounter {
  nvmlNvLinkErrorCounter_t counter;
  const char* name;
};

constexpr NvlinkCounter kNvlinkCounters[] = {
    {NVML_NVLINK_ERROR_DL_REPLAY, "replay"},     {NVML_NVLINK_ERROR_DL_RECOVERY, "recovery"},
    {NVML_NVLINK_ERROR_DL_CRC_FLIT, "crc_flit"}, {NVML_NVLINK_ERROR_DL_CRC_DATA, "crc_data"},
    {NVML_NVLINK_ERROR_DL_ECC_DATA, "ecc_data"},
};

}  // namespace

CounterReadings read_gpu_error_counters(const NvmlFunctions& api, unsigned device_count) {
  CounterReadings readings;
  for (unsigned index = 0; index < device_count; ++index) {
    nvmlDevice_t device = nullptr;
    if (api.handle_by_index(index, &device) != NVML_SUCCESS) continue;
    auto& counters = readings["gpu" + std::to_string(index)];
    nvmlPciInfo_t pci{};
    if (api.pci_info(device, &pci) == NVML_SUCCESS)
      counters[std::string(kBusKey) + normalize_bus_id(pci.busId)] = 0;
    if (api.pcie_replay_counter) {
      unsigned replays = 0;
      if (api.pcie_replay_counter(device, &replays) == NVML_SUCCESS)
        counters["pcie_replay"] = replays;
    }
    // The memory's ECC errors since the driver loaded: a write/read pattern or a GEMM that passed
    // while corrected or uncorrected errors grew still names the GPU.
    if (api.total_ecc_errors) {
      unsigned long long count = 0;
      if (api.total_ecc_errors(device, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
                               &count) == NVML_SUCCESS)
        counters["ecc.volatile_corrected"] = count;
      if (api.total_ecc_errors(device, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                               &count) == NVML_SUCCESS)
        counters["ecc.volatile_uncorrected"] = count;
    }
    if (!api.nvlink_error_counter) continue;
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      for (const NvlinkCounter& kind : kNvlinkCounters) {
        unsigned long long value = 0;
        // Links past the GPU's last, and counters a generation lacks, answer an error.
        if (api.nvlink_error_counter(device, link, kind.counter, &value) != NVML_SUCCESS) {
          if (kind.counter == NVML_NVLINK_ERROR_DL_REPLAY) break;
          continue;
        }
        counters["nvlink" + std::to_string(link) + "." + kind.name] = value;
      }
    }
  }
  return readings;
}

std::vector<Measurement> gpu_error_counter_growth(const CounterReadings& before,
                                                  const CounterReadings& after, double seconds) {
  std::vector<Measurement> out;
  for (const auto& [gpu, counters] : after) {
    const auto earlier = before.find(gpu);
    if (earlier == before.end()) continue;
    Measurement m;
    m.probe = kProbe;
    m.metric = kDeltaMetric;
    m.unit = "count";
    m.subject = gpu;
    double total = 0;
    for (const auto& [key, value] : counters) {
      if (key.rfind(kBusKey, 0) == 0) {
        m.params["bus_id"] = key.substr(std::char_traits<char>::length(kBusKey));
        continue;
      }
      const auto was = earlier->second.find(key);
      if (was == earlier->second.end() || value == was->second) continue;
      const std::string what = value < was->second ? "reset (" + std::to_string(was->second) +
                                                         " -> " + std::to_string(value) + ")"
                                                   : "+" + std::to_string(value - was->second);
      if (value > was->second) total += static_cast<double>(value - was->second);
      m.params[key] = what;
      m.message += (m.message.empty() ? gpu + ": " : ", ") + key + " " + what;
    }
    if (m.message.empty()) continue;
    m.value = total;
    char interval[32];
    std::snprintf(interval, sizeof interval, "%.1f", seconds);
    m.params["interval_s"] = interval;
    out.push_back(std::move(m));
  }
  return out;
}

CounterMonitor gpu_error_counter_monitor() {
  return {"NVML",
          [](const RunOptions&) {
            const NvmlSession& nvml = process_nvml();
            if (!nvml.ok()) return CounterReadings();
            return read_gpu_error_counters(*nvml.api, nvml.device_count);
          },
          gpu_error_counter_growth};
}

std::vector<FigureRef> gpu_error_counters_judge_reads() { return {{kProbe, kDeltaMetric}}; }

std::vector<Finding> judge_gpu_error_counters(const std::vector<Measurement>& measurements) {
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    if (m.probe != kProbe || m.metric != kDeltaMetric || m.value <= 0) continue;
    const std::string during = param_of(m, "during");
    Finding f = finding_about(m, Severity::fail);
    f.expected = 0;
    f.message = "GPU error counters grew" + (during.empty() ? std::string() : " during " + during) +
                " (" + param_of(m, "interval_s") + " s): " + m.message +
                (during.empty() ? "" : "; the probe's own figures may still have passed");
    f.evidence =
        "NVML nvmlDeviceGetNvLinkErrorCounter / nvmlDeviceGetPcieReplayCounter before "
        "and after, GPU " +
        param_of(m, "bus_id");
    f.remedy =
        "NVLink CRC or replay errors point at the link (nvidia-smi nvlink -e -i N; reseat or "
        "replace the baseboard if they recur); PCIe replays at the slot or riser (lspci -vvv)";
    f.source = "any growth under load is an error (DCGM's NVLink and PCIe replay checks)";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabcheck
