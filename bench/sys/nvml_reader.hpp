// Reads GpuTelemetry for every GPU NVML sees, through an NvmlFunctions (real or recorded).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "bench/sys/gpu_telemetry.hpp"
#include "bench/sys/nvml_library.hpp"

namespace fabcheck {

// One GPU as NVML names it, for choosing a profile and labelling measurements.
struct NvmlDeviceIdentity {
  int index = 0;
  std::string bus_id;  // normalised, "0000:17:00.0"
  std::string model;
  std::string uuid;
};

// Names and bus ids of the first `count` devices. A device NVML cannot open is left out.
std::vector<NvmlDeviceIdentity> read_nvml_identities(const NvmlFunctions& api, unsigned count);

// Reads device `index`. `own_pids` are this run's processes on this host (every rank, under each
// pid it has: run_processes.hpp): their memory is fabcheck's, everyone else's is "foreign" (memory
// already held when a job starts). `pid_visible` tells whether a pid exists in this pid namespace;
// a foreign pid that does not is marked so in foreign_pids ("4121(other pid namespace):30.0GB").
// Figures the driver refuses stay unknown. Throws std::runtime_error when the device cannot be
// opened at all (e.g. GPU is lost).
GpuTelemetry read_gpu_telemetry(const NvmlFunctions& api, unsigned index, TelemetryPhase phase,
                                const std::set<unsigned>& own_pids,
                                const std::function<bool(unsigned)>& pid_visible = {});

}  // namespace fabcheck
