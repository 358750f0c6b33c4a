// The words a memory pattern test writes and expects back, the same on host and GPU: walking ones,
// each word's own address, and seeded random words, each also inverted (every bit both ways).
#pragma once

#include <cstdint>

#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::sdc {

enum HbmPattern : int { walking_ones, address_in_address, random_words };
inline constexpr int kHbmPatterns = 3;

// "walking ones", "address in address", "random"
inline const char* hbm_pattern_name(int pattern) {
  switch (pattern) {
    case walking_ones:
      return "walking ones";
    case address_in_address:
      return "address in address";
    case random_words:
      return "random";
    default:
      return "?";
  }
}

// Word `index` of a buffer at device address `base` under `pattern`; `inverted` flips every bit.
FABCHECK_SDC_HD inline std::uint64_t hbm_pattern_word(int pattern, std::uint64_t base,
                                                      std::uint64_t index, std::uint64_t seed,
                                                      bool inverted) {
  std::uint64_t word = 0;
  switch (pattern) {
    case walking_ones:
      word = 1ULL << ((index + seed) % 64);
      break;
    case address_in_address:
      word = base + index * sizeof(std::uint64_t);
      break;
    default:
      word = mix64(seed + (index + 1) * 0x9E3779B97F4A7C15ULL);
      break;
  }
  return inverted ? ~word : word;
}

// What a check of a buffer found: wrong words, and the lowest index of one (all ones: none).
struct HbmCheck {
  unsigned long long wrong = 0;
  unsigned long long first_index = ~0ULL;
};

}  // namespace fabcheck::sdc
