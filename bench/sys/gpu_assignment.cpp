// Rank -> GPU mapping from host names and CUDA_VISIBLE_DEVICES, and the GPUs a rank drives.
#include "bench/sys/gpu_assignment.hpp"

#include <map>
#include <string_view>
#include <utility>

#include "bench/sys/config_error.hpp"
#include "bench/sys/launcher.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

std::string visible_note(const std::string& cuda_visible_devices) {
  return cuda_visible_devices.empty() ? std::string("CUDA_VISIBLE_DEVICES unset")
                                      : "CUDA_VISIBLE_DEVICES=" + cuda_visible_devices;
}

}  // namespace

std::vector<std::string> parse_visible_devices(const std::string& cuda_visible_devices) {
  std::vector<std::string> entries;
  std::string_view rest = cuda_visible_devices;
  while (!text::trim(rest).empty()) {
    const auto comma = rest.find(',');
    entries.emplace_back(text::trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return entries;
}

std::string gpu_label(int ordinal, const std::vector<std::string>& visible_entries) {
  const auto index = static_cast<std::size_t>(ordinal);
  if (ordinal >= 0 && index < visible_entries.size() && !visible_entries[index].empty()) {
    return visible_entries[index];
  }
  return std::to_string(ordinal);
}

GpuAssignment assign_gpu(const std::vector<std::string>& hosts, int rank, int visible_device_count,
                         const std::string& cuda_visible_devices) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= hosts.size()) {
    throw ConfigError("nccl: rank " + std::to_string(rank) + " outside a world of " +
                      std::to_string(hosts.size()) + " ranks");
  }
  const std::string& host = hosts[static_cast<std::size_t>(rank)];
  if (visible_device_count <= 0) {
    throw ConfigError("nccl: host " + host + " has no visible CUDA device (" +
                      visible_note(cuda_visible_devices) + ")");
  }
  const auto [local_rank, local_size] = local_rank_of(hosts, rank);
  GpuAssignment assignment;
  assignment.local_rank = local_rank;
  assignment.local_size = local_size;
  assignment.ordinal = local_rank % visible_device_count;
  assignment.label = gpu_label(assignment.ordinal, parse_visible_devices(cuda_visible_devices));
  return assignment;
}

std::string duplicate_gpu_problem(const std::vector<std::string>& hosts,
                                  const std::vector<RankGpu>& gpus) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> ranks_by_gpu;
  for (std::size_t rank = 0; rank < gpus.size() && rank < hosts.size(); ++rank) {
    ranks_by_gpu[{hosts[rank], gpus[rank].bus_id}].push_back(rank);
  }
  std::string problem;
  for (const auto& [key, ranks] : ranks_by_gpu) {
    if (ranks.size() < 2) continue;
    std::string names;
    for (std::size_t rank : ranks) {
      names += (names.empty() ? "" : ", ") + std::to_string(rank) + " (" +
               visible_note(gpus[rank].cuda_visible_devices) + ")";
    }
    problem += (problem.empty() ? "" : "; ") + std::string("host ") + key.first + ": ranks " +
               names + " all chose GPU " + key.second;
  }
  if (problem.empty()) return {};
  return "nccl: two ranks on one GPU, which NCCL refuses (\"Duplicate GPU detected\"): " + problem +
         "; launch one rank per GPU (as many ranks per node as GPUs, or srun --gpus-per-task=1)";
}

std::vector<int> devices_for_rank(int local_rank, int local_size, int device_count) {
  std::vector<int> devices;
  if (device_count <= 0 || local_size <= 0 || local_rank < 0) return devices;
  if (local_size > device_count) {
    devices.push_back(local_rank % device_count);
    return devices;
  }
  for (int ordinal = local_rank; ordinal < device_count; ordinal += local_size) {
    devices.push_back(ordinal);
  }
  return devices;
}

}  // namespace fabcheck
