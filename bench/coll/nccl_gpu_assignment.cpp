// Rank -> GPU mapping from host names and CUDA_VISIBLE_DEVICES (see nccl_gpu_assignment.hpp).
#include "bench/coll/nccl_gpu_assignment.hpp"

#include <string_view>

#include "bench/core/world.hpp"
#include "results/config_error.hpp"

namespace fabcheck {

namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::vector<std::string> parse_visible_devices(const std::string& cuda_visible_devices) {
  std::vector<std::string> entries;
  std::string_view rest = cuda_visible_devices;
  while (!trim(rest).empty()) {
    const auto comma = rest.find(',');
    entries.emplace_back(trim(rest.substr(0, comma)));
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
                         const std::string& cuda_visible_devices, bool allow_sharing) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= hosts.size()) {
    throw ConfigError("nccl: rank " + std::to_string(rank) + " outside a world of " +
                      std::to_string(hosts.size()) + " ranks");
  }
  const std::string& host = hosts[static_cast<std::size_t>(rank)];
  const std::string visible_note = cuda_visible_devices.empty()
                                       ? std::string("CUDA_VISIBLE_DEVICES unset")
                                       : "CUDA_VISIBLE_DEVICES=" + cuda_visible_devices;
  if (visible_device_count <= 0) {
    throw ConfigError("nccl: host " + host + " has no visible CUDA device (" + visible_note + ")");
  }
  const auto [local_rank, local_size] = local_rank_of(hosts, rank);
  if (local_size > visible_device_count && !allow_sharing) {
    throw ConfigError("nccl: host " + host + " runs " + std::to_string(local_size) +
                      " ranks but has " + std::to_string(visible_device_count) + " visible GPUs (" +
                      visible_note + "); launch one rank per GPU or pass --opt nccl.share_gpus=1");
  }
  GpuAssignment assignment;
  assignment.local_rank = local_rank;
  assignment.local_size = local_size;
  assignment.ordinal = local_rank % visible_device_count;
  assignment.label = gpu_label(assignment.ordinal, parse_visible_devices(cuda_visible_devices));
  return assignment;
}

}  // namespace fabcheck
