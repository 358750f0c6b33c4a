// The random, never-all-zero values gpu.* probes fill buffers with and verify copies against: one
// pure function of (seed, index), the same on host and device.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FABCHECK_HOST_DEVICE __host__ __device__
#else
#define FABCHECK_HOST_DEVICE
#endif

namespace fabcheck {

// splitmix64 of seed and index (Steele, Lea, Flood 2014); a zero result is replaced so no
// element is ever 0, and a buffer never copied reads as wrong.
FABCHECK_HOST_DEVICE inline std::uint64_t pattern_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z == 0 ? 0x5DEECE66DULL : z;
}

// A GEMM input in [-1, 1), never 0: the pattern's top 24 bits as a float.
FABCHECK_HOST_DEVICE inline float pattern_float(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = pattern_value(seed, index) >> 40;         // 24 bits
  const float unit = static_cast<float>(bits) * (1.0f / 16777216.0f);  // [0, 1)
  const float value = 2.0f * unit - 1.0f;
  return value == 0.0f ? 0.5f : value;
}

// What triad writes: a[i] = b[i] + scalar * c[i] in wrapping 64-bit integer arithmetic, so the
// expected value is exact.
FABCHECK_HOST_DEVICE inline std::uint64_t triad_value(std::uint64_t seed_b, std::uint64_t seed_c,
                                                      std::uint64_t scalar, std::uint64_t index) {
  return pattern_value(seed_b, index) + scalar * pattern_value(seed_c, index);
}

}  // namespace fabcheck
