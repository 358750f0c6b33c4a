// Which GPUs a rank drives: under MPI one, its rank among the ranks of its host over the devices
// that CUDA_VISIBLE_DEVICES leaves visible to it (the NCCL backend), or a share of the visible ones
// (the gpu.* probes: all of them in a single process); and the one rule that can refuse a launch:
// two ranks of a host on the same GPU (by PCI bus id), which NCCL refuses too ("Duplicate GPU
// detected").
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

// One GPU per rank: local rank modulo the device count visible to this rank. Fewer visible devices
// than ranks on the host is no error by itself: with `srun --gpus-per-task=1` (or a per-rank
// CUDA_VISIBLE_DEVICES) every rank sees one device, its own; duplicate_gpu_problem() decides from
// the bus ids. Throws ConfigError when no device is visible.
GpuAssignment assign_gpu(const std::vector<std::string>& hosts, int rank, int visible_device_count,
                         const std::string& cuda_visible_devices);

// What each rank reported: the bus id of the GPU it chose and its CUDA_VISIBLE_DEVICES ("" unset).
struct RankGpu {
  std::string bus_id;
  std::string cuda_visible_devices;
};

// "" when no two ranks of one host chose the same GPU (same bus id); else the message of the
// ConfigError every rank throws, naming the host, the GPU, the ranks and their
// CUDA_VISIBLE_DEVICES. `hosts` and `gpus` are in rank order.
std::string duplicate_gpu_problem(const std::vector<std::string>& hosts,
                                  const std::vector<RankGpu>& gpus);

// The label of device `ordinal` (see GpuAssignment::label).
std::string gpu_label(int ordinal, const std::vector<std::string>& visible_entries);

// The CUDA ordinals rank `local_rank` of `local_size` on a host drives when `device_count` are
// visible: ordinals o with o % local_size == local_rank (every GPU when alone on the host, one
// when there are as many ranks as GPUs); with more ranks than GPUs, ranks share by modulo.
std::vector<int> devices_for_rank(int local_rank, int local_size, int device_count);

}  // namespace fabcheck
