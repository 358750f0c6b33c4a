// GpuTelemetry: one reading of a GPU's health (NVML), the input of the health judgement rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

// When a reading was taken: at rest before the heavy probes, or while a heavy probe kept the GPU
// busy (clocks, temperature, throttling and PCIe generation mean something only under load).
enum class TelemetryPhase { idle, load };

const char* to_string(TelemetryPhase phase);

// A process holding memory on a GPU, as NVML lists it.
struct GpuProcess {
  unsigned pid = 0;
  double memory_gb = 0;              // 0 when the driver cannot tell
  bool other_pid_namespace = false;  // the pid names no process here (NVML saw it elsewhere)
};

// Every figure is optional: a driver may not support it (NVML_ERROR_NOT_SUPPORTED) and a recorded
// measurement set may lack it; the rules judge only what is known.
struct GpuTelemetry {
  int index = 0;       // NVML index (the order nvidia-smi shows)
  std::string bus_id;  // "0000:17:00.0"
  std::string model;   // "NVIDIA H100 80GB HBM3"
  std::string uuid;    // "GPU-5a1c..."
  TelemetryPhase phase = TelemetryPhase::idle;

  std::optional<double> temperature_c;
  std::optional<double> sm_clock_mhz;
  std::optional<double> sm_clock_max_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<std::uint64_t> clock_event_reasons;  // nvml_reasons bits

  std::optional<double> ecc_uncorrected_volatile;
  std::optional<double> ecc_corrected_volatile;
  std::optional<bool> retired_pages_pending;
  std::optional<bool> remapped_rows_pending;
  std::optional<bool> row_remap_failure;

  std::optional<int> pcie_gen;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width;
  std::optional<int> pcie_width_max;

  std::optional<int> nvlink_links;   // links the GPU has (answered by NVML)
  std::vector<int> nvlink_inactive;  // those of them that are not active

  std::optional<double> memory_total_gb;  // GB = 1e9 bytes
  std::optional<double> memory_used_gb;
  std::optional<double> foreign_memory_gb;    // held by processes other than fabcheck's own
  std::string foreign_pids;                   // "4121:30.0GB,5127:1.2GB"
  std::vector<GpuProcess> foreign_processes;  // the same, one entry each
};

// "thermal-hw,power-brake": the names of the set clock-event reason bits, in bit order.
std::string describe_clock_event_reasons(std::uint64_t reasons);

// "0000:17:00.0" from NVML's "00000000:17:00.0" (8-digit domain), lower case.
std::string normalize_bus_id(const std::string& nvml_bus_id);

}  // namespace fabcheck
