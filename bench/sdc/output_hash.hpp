// The hash of a computation's output that GPUs of one model, driver and library version must agree
// on (the deterministic GEMM's): a wrapping sum of one mixed term per 32-bit word, so any order of
// adding (threads, atomics) gives the same hash, and any changed bit changes it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::sdc {

// Word `index` holding `word`'s share of the hash.
FABCHECK_SDC_HD inline std::uint64_t output_hash_term(std::uint64_t index, std::uint32_t word) {
  return mix64((index + 1) * 0x9E3779B97F4A7C15ULL ^
               (static_cast<std::uint64_t>(word) << 17 | word));
}

// The hash of `count` words on the host (the reference of the device's launch_hash_words).
inline std::uint64_t output_hash(const std::uint32_t* words, std::size_t count) {
  std::uint64_t hash = 0;
  for (std::size_t i = 0; i < count; ++i) hash += output_hash_term(i, words[i]);
  return hash;
}

}  // namespace fabcheck::sdc
