// The six collectives: element counts per rank for a message size, and nccl-tests' bus factors
// (doc/PERFORMANCE.md there), so every backend reports algbw and busbw the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, alltoall, sendrecv };

const std::vector<Collective>& all_collectives();
// "all_reduce" (the probe id is "coll.all_reduce").
const char* collective_name(Collective collective);
std::optional<Collective> collective_from_name(const std::string& name);

// busbw = algbw * bus_factor(n): all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n;
// broadcast and sendrecv 1. n = 1 gives 0 for the (n-1) forms, as in nccl-tests.
double bus_factor(Collective collective, int nranks);

// algbw in GB/s (1e9 bytes/s) for `size_bytes` moved in `seconds`.
double algbw_gbps(std::uint64_t size_bytes, double seconds);

// Buffer shape of one operation at a nominal size, following nccl-tests: `size_bytes` is the
// all-reduce/broadcast/sendrecv buffer, the all-gather output, the reduce-scatter input and the
// alltoall buffer of each rank. Sizes are rounded down to a whole number of elements per rank.
struct CollectiveShape {
  std::uint64_t size_bytes = 0;  // the size actually used, after rounding (0: too small to run)
  std::uint64_t count = 0;       // elements the table reports (nccl-tests' "count")
  std::uint64_t send_count = 0;  // elements each rank sends from its input buffer
  std::uint64_t recv_count = 0;  // elements each rank's output buffer holds
};

CollectiveShape collective_shape(Collective collective, std::uint64_t size_bytes, int nranks,
                                 std::size_t element_size);

}  // namespace fabcheck
