// Which GPU a rank drives under MPI: its rank among the ranks of its host, over the devices that
// CUDA_VISIBLE_DEVICES leaves visible.
#pragma once

#include <string>
#include <vector>

namespace fabcheck {

struct GpuAssignment {
  int local_rank = 0;  // among the ranks of the same host
  int local_size = 1;
  int ordinal = 0;    // CUDA device ordinal in this process
  std::string label;  // the GPU's name for people: its CUDA_VISIBLE_DEVICES entry, else the ordinal
};

// Entries of CUDA_VISIBLE_DEVICES ("2,3" -> {"2", "3"}; "GPU-5a1c..,MIG-.." kept as written).
// Empty when the variable is unset or empty.
std::vector<std::string> parse_visible_devices(const std::string& cuda_visible_devices);

// One GPU per rank: local rank modulo the visible device count. More ranks on a host than visible
// GPUs throws ConfigError naming the host and the counts, unless `allow_sharing`.
GpuAssignment assign_gpu(const std::vector<std::string>& hosts, int rank, int visible_device_count,
                         const std::string& cuda_visible_devices, bool allow_sharing);

// The label of device `ordinal` (see GpuAssignment::label).
std::string gpu_label(int ordinal, const std::vector<std::string>& visible_entries);

}  // namespace fabcheck
