// Exactly predictable collective data: what each rank puts in, and what each output element must
// be by a collective's output rule, for every element type and reduction operation. Inputs are
// chosen per (type, op) so that the result is exact in any reduction order (integers: modular
// arithmetic, any values; floating types: small integers whose every partial sum or product is
// representable). Float/sum inputs are integers in 1..16, so sums over up to 2^20 ranks are exact.
// Shared with the device code of the NCCL backend (hence FABCHECK_HD, and no include but
// <cstdint>): the host check and the GPU kernels evaluate the same rule.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FABCHECK_HD __host__ __device__
#else
#define FABCHECK_HD
#endif

namespace fabcheck::verify {

// The mixed bits behind input element `index` of `rank`'s send buffer, for one `seed` (changed
// between checks so a stale buffer from an earlier operation cannot pass).
FABCHECK_HD inline std::uint64_t input_hash(int rank, std::uint64_t index, std::uint32_t seed) {
  std::uint64_t h =
      (index + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(rank) << 32) ^ seed;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return h;
}

// Float/sum input element `index` of `rank`: an integer in 1..16.
FABCHECK_HD inline float input_value(int rank, std::uint64_t index, std::uint32_t seed) {
  return static_cast<float>(input_hash(rank, index, seed) % 16 + 1);
}

// Sum over all ranks of input_value at `index`.
FABCHECK_HD inline float reduced_value(int nranks, std::uint64_t index, std::uint32_t seed) {
  float sum = 0;
  for (int r = 0; r < nranks; ++r) sum += input_value(r, index, seed);
  return sum;
}

// Element types and reduction operations, as nccl-tests names them (-d, -o; data_types.hpp has the
// names).
enum class DataType : std::uint8_t {
  int8,
  uint8,
  int32,
  uint32,
  int64,
  uint64,
  float16,  // "half"
  float32,  // "float"
  float64,  // "double"
  bfloat16,
};
enum class ReduceOp : std::uint8_t { sum, prod, min, max, avg };

// What a collective moves: each element's type, and how a reducing collective combines them (the
// others ignore `op`).
struct Element {
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
};

FABCHECK_HD constexpr bool is_floating(DataType type) {
  return type == DataType::float16 || type == DataType::float32 || type == DataType::float64 ||
         type == DataType::bfloat16;
}

FABCHECK_HD constexpr bool is_signed_integer(DataType type) {
  return type == DataType::int8 || type == DataType::int32 || type == DataType::int64;
}

FABCHECK_HD constexpr unsigned element_bytes(DataType type) {
  switch (type) {
    case DataType::int8:
    case DataType::uint8:
      return 1;
    case DataType::float16:
    case DataType::bfloat16:
      return 2;
    case DataType::int32:
    case DataType::uint32:
    case DataType::float32:
      return 4;
    default:
      return 8;
  }
}

// The low element_bytes(type) bytes of `bits`.
FABCHECK_HD constexpr std::uint64_t element_mask(DataType type) {
  return element_bytes(type) == 8 ? ~0ull : (1ull << (8 * element_bytes(type))) - 1;
}

// A floating type's significand bits, the implicit one included (float 24, double 53, half 11,
// bfloat16 8): every integer up to 2^significand_bits is exact; and its exponent field's width.
FABCHECK_HD constexpr int significand_bits(DataType type) {
  return type == DataType::float16    ? 11
         : type == DataType::bfloat16 ? 8
         : type == DataType::float64  ? 53
                                      : 24;
}
FABCHECK_HD constexpr int exponent_bits(DataType type) {
  return type == DataType::float16 ? 5 : type == DataType::float64 ? 11 : 8;
}
// The largest power of two a floating type holds: 2^max_exponent (half 15, double 1023, else 127).
FABCHECK_HD constexpr int max_exponent(DataType type) {
  return (1 << (exponent_bits(type) - 1)) - 1;
}

// The largest sum input m of a floating type on `nranks` ranks (inputs 1..m, every partial sum at
// most nranks x m <= 2^significand_bits, so exact in any order), at most 16 (float/sum's 1..16);
// 0 when not even inputs of 1 stay exact (more ranks than 2^significand_bits).
FABCHECK_HD constexpr std::uint64_t sum_input_limit(DataType type, int nranks) {
  const std::uint64_t bound = 1ull << significand_bits(type);
  const std::uint64_t limit = nranks > 0 ? bound / static_cast<std::uint64_t>(nranks) : 0;
  return limit < 16 ? limit : 16;
}

// Whether (type, op) on `nranks` ranks has exactly predictable results: a floating sum or average
// needs sum_input_limit >= 1, and an average of floating values a power-of-two rank count (NCCL
// multiplies each input by 1/n rounded to the type, exact only then). Everything else always.
FABCHECK_HD constexpr bool exact_on(const Element& element, int nranks) {
  if (!is_floating(element.type)) return true;
  if (element.op == ReduceOp::sum || element.op == ReduceOp::avg) {
    if (sum_input_limit(element.type, nranks) == 0) return false;
  }
  if (element.op == ReduceOp::avg) return nranks > 0 && (nranks & (nranks - 1)) == 0;
  return true;
}

// Input element `index` of `rank` for `element` on `nranks` ranks, as the value it stands for
// (sign-extended for signed types; the bits for uint64):
//   integers: any value (the hash's low bits); for prod an odd one, so products never reach 0;
//   floating sum, avg: an integer in 1..sum_input_limit;
//   floating prod: +-1 or +-2, +-2 only on the first max_exponent ranks (|product| <= 2^max);
//   floating min, max: an integer in -16..16, so signedness is checked.
FABCHECK_HD inline std::int64_t input_integer(const Element& element, int nranks, int rank,
                                              std::uint64_t index, std::uint32_t seed) {
  const std::uint64_t h = input_hash(rank, index, seed);
  if (!is_floating(element.type)) {
    std::uint64_t bits = h & element_mask(element.type);
    if (element.op == ReduceOp::prod) bits |= 1;
    const unsigned width = 8 * element_bytes(element.type);
    if (is_signed_integer(element.type) && width < 64 && (bits >> (width - 1)) != 0) {
      bits |= ~element_mask(element.type);  // sign-extended
    }
    return static_cast<std::int64_t>(bits);
  }
  switch (element.op) {
    case ReduceOp::prod: {
      const std::int64_t magnitude = rank < max_exponent(element.type) && (h & 1) != 0 ? 2 : 1;
      return (h & 2) != 0 ? -magnitude : magnitude;
    }
    case ReduceOp::min:
    case ReduceOp::max:
      return static_cast<std::int64_t>(h % 33) - 16;
    default: {
      const std::uint64_t limit = sum_input_limit(element.type, nranks);
      return static_cast<std::int64_t>(h % (limit > 0 ? limit : 1) + 1);
    }
  }
}

// The bits of `integer` x 2^-shift in a floating type (exact: the callers keep the value within
// the significand and the normal exponent range). Positive zero for 0.
FABCHECK_HD constexpr std::uint64_t floating_bits(DataType type, std::int64_t integer, int shift) {
  if (integer == 0) return 0;
  const int mantissa = significand_bits(type) - 1;
  const int exponent_width = exponent_bits(type);
  const std::uint64_t sign = integer < 0 ? 1 : 0;
  const std::uint64_t magnitude =
      integer < 0 ? 0 - static_cast<std::uint64_t>(integer) : static_cast<std::uint64_t>(integer);
  int top = 63;
  while ((magnitude >> top) == 0) --top;
  const std::uint64_t fraction =
      (top >= mantissa ? magnitude >> (top - mantissa) : magnitude << (mantissa - top)) &
      ((1ull << mantissa) - 1);
  const auto biased = static_cast<std::uint64_t>(top - shift + max_exponent(type));
  return sign << (exponent_width + mantissa) | biased << mantissa | fraction;
}

// The bits element `value` (an input_integer, or a reduction of them) has in memory; `shift` as
// floating_bits (the average's 2^-log2 n).
FABCHECK_HD constexpr std::uint64_t element_bits(DataType type, std::int64_t value, int shift = 0) {
  return is_floating(type) ? floating_bits(type, value, shift)
                           : static_cast<std::uint64_t>(value) & element_mask(type);
}

// The bits of input element `index` of `rank`.
FABCHECK_HD inline std::uint64_t input_bits(const Element& element, int nranks, int rank,
                                            std::uint64_t index, std::uint32_t seed) {
  return element_bits(element.type, input_integer(element, nranks, rank, index, seed));
}

// The bits of `op` over every rank's input element `index`, as NCCL computes it: integers in
// modular arithmetic (sum, prod wrap; min and max compare signed or unsigned by the type); avg of
// integers is the wrapped sum divided by n, truncated toward zero for signed types (NCCL's
// FuncSumPostDiv); avg of floating values is the exact sum x 2^-log2 n (each input x 1/n summed,
// NCCL's FuncPreMulSum, exact for a power-of-two n: exact_on).
FABCHECK_HD inline std::uint64_t reduced_bits(const Element& element, int nranks,
                                              std::uint64_t index, std::uint32_t seed) {
  const DataType type = element.type;
  std::uint64_t acc = static_cast<std::uint64_t>(input_integer(element, nranks, 0, index, seed));
  for (int r = 1; r < nranks; ++r) {
    const auto value = static_cast<std::uint64_t>(input_integer(element, nranks, r, index, seed));
    const bool less = type == DataType::uint64
                          ? value < acc
                          : static_cast<std::int64_t>(value) < static_cast<std::int64_t>(acc);
    switch (element.op) {
      case ReduceOp::prod:
        acc *= value;
        break;
      case ReduceOp::min:
        if (less) acc = value;
        break;
      case ReduceOp::max:
        if (!less && value != acc) acc = value;
        break;
      default:  // sum, avg
        acc += value;
    }
  }
  if (element.op != ReduceOp::avg) return element_bits(type, static_cast<std::int64_t>(acc));
  if (is_floating(type)) {
    int shift = 0;
    while ((1 << shift) < nranks) ++shift;
    return element_bits(type, static_cast<std::int64_t>(acc), shift);
  }
  const auto n = static_cast<std::uint64_t>(nranks);
  const std::uint64_t wrapped = acc & element_mask(type);
  if (!is_signed_integer(type)) return wrapped / n;
  const unsigned width = 8 * element_bytes(type);
  std::uint64_t extended = wrapped;
  if (width < 64 && (wrapped >> (width - 1)) != 0) extended |= ~element_mask(type);
  const std::int64_t quotient = static_cast<std::int64_t>(extended) / static_cast<std::int64_t>(n);
  return static_cast<std::uint64_t>(quotient) & element_mask(type);
}

// A value no output element can hold where one exists: a quiet NaN for floating types (no exact
// integer result is one); for integer types every value is a possible result, so a poisoned
// element that was never written passes only where the pattern 0xA5... happens to be its
// expected value (1 in 2^bits).
FABCHECK_HD constexpr std::uint64_t poison_bits(DataType type) {
  if (!is_floating(type)) return 0xA5A5A5A5A5A5A5A5ull & element_mask(type);
  const int mantissa = significand_bits(type) - 1;
  return ((1ull << exponent_bits(type)) - 1) << mantissa | 1ull << (mantissa - 1);
}

// The blocks OutputRule reads an output in: one block (the whole output), blocks of one rank's
// input (send_count elements: the all-gather), or one block per rank (the output's count / n: the
// alltoall).
enum class OutputBlocks : std::uint8_t { one, send_count, per_rank };

// Where each element of a collective's output comes from (a collective's verification, declared in
// its table entry as data, so that the host and a GPU kernel evaluate the same rule: a kernel
// cannot call a host function of the table). Element j of block b of rank r's output, n ranks:
//   reduced: the reduction (Element's op) over every rank of input element `i`;
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

// Where element `index` of member `rank`'s result comes from under `rule`, for a shape's counts
// (collective.hpp): the input element, and the rank whose input it is (unused when reduced).
struct OutputSource {
  int rank = 0;
  std::uint64_t input = 0;
};
FABCHECK_HD inline OutputSource output_source(const OutputRule& rule, int rank, int nranks,
                                              std::uint64_t send_count, std::uint64_t recv_count,
                                              std::uint64_t index) {
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
  std::int64_t source = static_cast<std::int64_t>(block) * rule.source_per_block +
                        static_cast<std::int64_t>(rank) * rule.source_per_rank + rule.source_shift;
  source %= nranks;
  if (source < 0) source += nranks;
  return {static_cast<int>(source), input};
}

// What element `index` of member `rank`'s float/sum result must hold under `rule`. The result is
// where the backend's layout puts it (buffer_layout.hpp).
FABCHECK_HD inline float expected_output(const OutputRule& rule, int rank, int nranks,
                                         std::uint64_t send_count, std::uint64_t recv_count,
                                         std::uint64_t index, std::uint32_t seed) {
  const OutputSource from = output_source(rule, rank, nranks, send_count, recv_count, index);
  if (rule.reduced) return reduced_value(nranks, from.input, seed);
  return input_value(from.rank, from.input, seed);
}

// The bits element `index` of member `rank`'s result must hold under `rule` for `element`.
FABCHECK_HD inline std::uint64_t expected_bits(const OutputRule& rule, const Element& element,
                                               int rank, int nranks, std::uint64_t send_count,
                                               std::uint64_t recv_count, std::uint64_t index,
                                               std::uint32_t seed) {
  const OutputSource from = output_source(rule, rank, nranks, send_count, recv_count, index);
  if (rule.reduced) return reduced_bits(element, nranks, from.input, seed);
  return input_bits(element, nranks, from.rank, from.input, seed);
}

}  // namespace fabcheck::verify
