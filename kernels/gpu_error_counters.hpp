// NVLink (replay, recovery, CRC, ECC), PCIe replay and memory ECC (volatile corrected and
// uncorrected) counters of every GPU through NVML, read around each heavy probe: their growth
// during a probe is a finding naming the GPU, the link and counter, and the probe, even when the
// probe's bandwidth passed.
#pragma once

#include <vector>

#include "bench/core/counter_monitor.hpp"
#include "bench/sys/nvml_library.hpp"
#include "results/figure_ref.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// "gpu<N>" -> {"nvlink3.crc_flit": 12, ..., "pcie_replay": 0, "ecc.volatile_corrected": 0,
// "bus_id:0000:18:00.0": 0}; links and counters NVML does not answer are left out. A GPU that
// cannot be opened is left out.
CounterReadings read_gpu_error_counters(const NvmlFunctions& api, unsigned device_count);

// error_counter_delta under gpu.health per GPU whose counters grew (or went back: reset), value =
// the total growth, params name each counter ("nvlink3.crc_flit": "+12") and the bus id.
std::vector<Measurement> gpu_error_counter_growth(const CounterReadings& before,
                                                  const CounterReadings& after, double seconds);

// The monitor the runner reads around heavy probes, over the process's NVML (nothing without it).
CounterMonitor gpu_error_counter_monitor();

// FAIL for every gpu.health error_counter_delta above 0, naming the counters and params "during".
std::vector<Finding> judge_gpu_error_counters(const std::vector<Measurement>& measurements);
// What it reads: gpu.health/error_counter_delta.
std::vector<FigureRef> gpu_error_counters_judge_reads();

}  // namespace fabcheck
