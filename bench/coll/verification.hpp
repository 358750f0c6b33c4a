// Exactly predictable collective data: what each rank puts in, and what each output element must
// be. Values are small integers in float32, so sums over up to 2^20 ranks are exact. Shared with
// the device code of the NCCL backend (hence FABCHECK_HD).
#pragma once

#include <cstdint>

#include "bench/coll/collective.hpp"

#if defined(__CUDACC__)
#define FABCHECK_HD __host__ __device__
#else
#define FABCHECK_HD
#endif

namespace fabcheck::verify {

// Input element `index` of `rank`'s send buffer, for one `seed` (changed between checks so a stale
// buffer from an earlier operation cannot pass): an integer in 1..16.
FABCHECK_HD inline float input_value(int rank, std::uint64_t index, std::uint32_t seed) {
  std::uint64_t h =
      (index + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(rank) << 32) ^ seed;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<float>(h % 16 + 1);
}

// Sum over all ranks of input_value at `index`.
FABCHECK_HD inline float reduced_value(int nranks, std::uint64_t index, std::uint32_t seed) {
  float sum = 0;
  for (int r = 0; r < nranks; ++r) sum += input_value(r, index, seed);
  return sum;
}

// The root every rooted collective uses.
inline constexpr int kRoot = 0;

// What element `index` of member `rank`'s result must hold, for a shape's counts (collective.hpp).
// The result is the whole output buffer, except for an in-place reduce-scatter, where it is the
// member's own block (the backend points at it).
FABCHECK_HD inline float expected_output(Collective collective, int rank, int nranks,
                                         std::uint64_t send_count, std::uint64_t recv_count,
                                         std::uint64_t index, std::uint32_t seed) {
  const auto n = static_cast<std::uint64_t>(nranks);
  switch (collective) {
    case Collective::all_reduce:
      return reduced_value(nranks, index, seed);
    case Collective::all_gather:
      return input_value(static_cast<int>(index / send_count), index % send_count, seed);
    case Collective::reduce_scatter:
      return reduced_value(nranks, static_cast<std::uint64_t>(rank) * recv_count + index, seed);
    case Collective::broadcast:
      return input_value(kRoot, index, seed);
    case Collective::alltoall: {
      const std::uint64_t per_peer = recv_count / n;
      const auto source = static_cast<int>(index / per_peer);
      return input_value(source, static_cast<std::uint64_t>(rank) * per_peer + index % per_peer,
                         seed);
    }
    case Collective::sendrecv:
      return input_value((rank + nranks - 1) % nranks, index, seed);
  }
  return -1;
}

}  // namespace fabcheck::verify
