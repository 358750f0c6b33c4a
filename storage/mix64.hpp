// splitmix64's finaliser: a cheap, well-mixed 64-bit hash, shared by the data pattern's block keys
// and the random offsets' permutation rounds.
#pragma once

#include <cstdint>

namespace fabcheck {

constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

}  // namespace fabcheck
