// The memory the probes' buffers will take, planned before anything starts: each rank's buffers at
// the largest size, as each probe declares them (ProbeInfo::buffer_need: the collectives), against
// what this host can give its ranks (MemAvailable, and the cgroup's limit under Slurm or a
// container) or, with NCCL, what each GPU has free. A size that cannot fit, or that leaves no
// element per rank, is a usage error (exit 2) naming the size and the memory, rather than
// std::bad_alloc or the OOM killer half-way through the run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct CollectiveMemoryNeed {
  std::string probe;                 // "coll.all_reduce"
  std::uint64_t size_bytes = 0;      // the size that needs the most
  std::uint64_t bytes_per_rank = 0;  // input + output buffers of one rank at that size
};

// The largest need over the selected probes that declare one (ProbeInfo::buffer_need: the coll.*
// collectives, at their sizes for `backend` and their placements), with `ranks` ranks; nullopt
// when none is selected. Throws ConfigError when a probe has no size with at least one element per
// rank.
std::optional<CollectiveMemoryNeed> largest_collective_need(const std::vector<Probe*>& probes,
                                                            const RunOptions& options,
                                                            const std::string& backend, int ranks);

// Bytes this host can still give: MemAvailable, lowered to what this process's memory cgroup
// allows (v1 or v2) when that is less. nullopt when unknown.
std::optional<std::uint64_t> host_memory_available();

// Free memory of the GPU that has the most (NVML: total - used); nullopt without NVML or GPUs.
std::optional<std::uint64_t> largest_gpu_memory_free();

// Throws ConfigError when `need` times `local_ranks` exceeds `available` (host memory; the MPI
// backend's buffers), or `need` exceeds `gpu_free` (per GPU; the NCCL backend's).
void check_memory_plan(const CollectiveMemoryNeed& need, const std::string& backend,
                       int local_ranks, std::optional<std::uint64_t> available,
                       std::optional<std::uint64_t> gpu_free);

}  // namespace fabcheck
