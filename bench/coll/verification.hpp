// Exactly predictable collective data: what each rank puts in, and what each output element must
// be by a collective's output rule. Values are small integers in float32, so sums over up to 2^20
// ranks are exact. Shared with the device code of the NCCL backend (hence FABCHECK_HD, and no
// include but <cstdint>).
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

// The blocks OutputRule reads an output in: one block (the whole output), blocks of one rank's
// input (send_count elements: the all-gather), or one block per rank (the output's count / n: the
// alltoall).
enum class OutputBlocks : std::uint8_t { one, send_count, per_rank };

// Where each element of a collective's output comes from (a collective's verification, declared in
// its table entry as data, so that the host and a GPU kernel evaluate the same rule: a kernel
// cannot call a host function of the table). Element j of block b of rank r's output, n ranks:
//   reduced: the sum over every rank of input element `i`;
//   else:    input element `i` of rank (b * source_per_block + r * source_per_rank + source_shift)
//            mod n;
// where i = j, or r * (the block's length) + j with index_at_rank_block.
struct OutputRule {
  bool reduced = false;
  OutputBlocks blocks = OutputBlocks::one;
  int source_per_block = 0;
  int source_per_rank = 0;
  int source_shift = 0;
  bool index_at_rank_block = false;
};

// What element `index` of member `rank`'s result must hold under `rule`, for a shape's counts
// (collective.hpp). The result is where the backend's layout puts it (buffer_layout.hpp).
FABCHECK_HD inline float expected_output(const OutputRule& rule, int rank, int nranks,
                                         std::uint64_t send_count, std::uint64_t recv_count,
                                         std::uint64_t index, std::uint32_t seed) {
  const auto n = static_cast<std::uint64_t>(nranks);
  const std::uint64_t length = rule.blocks == OutputBlocks::send_count ? send_count
                               : rule.blocks == OutputBlocks::per_rank ? recv_count / n
                                                                       : recv_count;
  std::uint64_t block = 0;
  std::uint64_t offset = index;
  if (rule.blocks != OutputBlocks::one) {
    block = index / length;
    offset = index % length;
  }
  const std::uint64_t input =
      rule.index_at_rank_block ? static_cast<std::uint64_t>(rank) * length + offset : offset;
  if (rule.reduced) return reduced_value(nranks, input, seed);
  std::int64_t source = static_cast<std::int64_t>(block) * rule.source_per_block +
                        static_cast<std::int64_t>(rank) * rule.source_per_rank + rule.source_shift;
  source %= nranks;
  if (source < 0) source += nranks;
  return input_value(static_cast<int>(source), input, seed);
}

}  // namespace fabcheck::verify
