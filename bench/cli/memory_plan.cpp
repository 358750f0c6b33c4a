// Planning the probes' buffer memory: buffers per rank at the largest size, host and GPU room.
#include "bench/cli/memory_plan.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench/sys/config_error.hpp"
#include "bench/sys/nvml_library.hpp"
#include "bench/sys/nvml_reader.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

std::optional<std::uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Room left in this process's memory cgroup: limit - usage (v2: memory.max/current, v1:
// memory.limit_in_bytes/usage_in_bytes); nullopt without a limit.
std::optional<std::uint64_t> cgroup_room() {
  std::ifstream cgroups("/proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::optional<std::uint64_t> limit;
    std::optional<std::uint64_t> usage;
    if (controllers.empty()) {
      limit = read_number("/sys/fs/cgroup" + path + "/memory.max");
      usage = read_number("/sys/fs/cgroup" + path + "/memory.current");
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      limit = read_number("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
      usage = read_number("/sys/fs/cgroup/memory" + path + "/memory.usage_in_bytes");
    }
    // v1 reports "no limit" as a huge number.
    if (limit && usage && *limit < (1ull << 60)) return *limit > *usage ? *limit - *usage : 0;
  }
  return std::nullopt;
}

}  // namespace

std::optional<CollectiveMemoryNeed> largest_collective_need(const std::vector<Probe*>& probes,
                                                            const RunOptions& options,
                                                            const std::string& backend, int ranks) {
  std::optional<CollectiveMemoryNeed> largest;
  for (const Probe* probe : probes) {
    const auto& need_of = probe->info().buffer_need;
    if (!need_of) continue;
    const BufferNeed need = need_of(options, backend, ranks);
    if (!largest || need.bytes_per_rank > largest->bytes_per_rank) {
      largest = {probe->id(), need.size_bytes, need.bytes_per_rank};
    }
  }
  return largest;
}

std::optional<std::uint64_t> host_memory_available() {
  std::optional<std::uint64_t> available;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    std::uint64_t kib = 0;
    if (fields >> kib) available = kib * 1024;
  }
  if (const auto room = cgroup_room(); room && (!available || *room < *available)) available = room;
  return available;
}

std::optional<std::uint64_t> largest_gpu_memory_free() {
  const NvmlSession& nvml = process_nvml();
  if (!nvml.ok()) return std::nullopt;
  std::optional<std::uint64_t> most;
  for (unsigned index = 0; index < nvml.device_count; ++index) {
    try {
      const GpuTelemetry gpu = read_gpu_telemetry(*nvml.api, index, TelemetryPhase::idle, {});
      if (!gpu.memory_total_gb || !gpu.memory_used_gb) continue;
      const double free_gb = std::max(0.0, *gpu.memory_total_gb - *gpu.memory_used_gb);
      const auto free_bytes = static_cast<std::uint64_t>(free_gb * 1e9);
      if (!most || free_bytes > *most) most = free_bytes;
    } catch (const std::exception&) {
      // A GPU NVML cannot open: the probes that use it say so.
    }
  }
  return most;
}

void check_memory_plan(const CollectiveMemoryNeed& need, const std::string& backend,
                       int local_ranks, std::optional<std::uint64_t> available,
                       std::optional<std::uint64_t> gpu_free) {
  const std::string what = need.probe + " at " + format_bytes(need.size_bytes) + " needs " +
                           format_bytes(need.bytes_per_rank) + " of buffers per rank";
  if (backend == "mpi" && available) {
    const std::uint64_t total = need.bytes_per_rank * static_cast<std::uint64_t>(local_ranks);
    if (total > *available) {
      throw ConfigError("--sizes: " + what + " (" + std::to_string(local_ranks) +
                        " rank(s) on this host: " + format_bytes(total) + "), but this host has " +
                        format_bytes(*available) +
                        " of memory available (MemAvailable, or the cgroup's limit): lower "
                        "--sizes");
    }
  }
  if (backend == "nccl" && gpu_free && need.bytes_per_rank > *gpu_free) {
    throw ConfigError("--sizes: " + what +
                      " on its GPU, but the GPU with the most free memory "
                      "has " +
                      format_bytes(*gpu_free) + " free: lower --sizes");
  }
}

}  // namespace fabcheck
