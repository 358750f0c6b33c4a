// Exactly predictable collective data: what each rank puts in, and what each output element must be.
// Values are small integers in float32, so sums over up to 2^20 ranks are exact. Shared with the
// device code of the NCCL backend (hence FABCHECK_HD).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FABCHECK_HD __host__ __device__
#else
#define FABCHECK_HD
#endif

namespace fabcheck::verify {

// Input element `index` of `rank`'s send buffer, for one `seed` (changed between checks so a stale
// buffer from an earlier operation cannot pass): an integer in 1..16.
FABCHECK_HD inline float input_value(int rank, std::uint64_t index, std::uint32_t seed) {
  std::uint64_t h = (index + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(rank) << 32) ^
                    seed;
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

}  // namespace fabcheck::verify
