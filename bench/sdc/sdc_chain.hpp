// The chains an SDC screen computes, as pure functions the same on a CPU core and a GPU SM: an
// integer multiply/xor/rotate hash chain, FP64 and FP32 FMA chains and a CRC32C of a seeded word
// stream, each bit of each result fixed by IEEE 754 and two's-complement arithmetic alone.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FABCHECK_SDC_HD __host__ __device__
#else
#define FABCHECK_SDC_HD
#endif

namespace fabcheck::sdc {

// The words of one block's digest, in the order a report names them.
enum DigestWord : int {
  int_chain_word,
  fp64_chain_word,
  fp32_chain_word,
  crc_soft_word,
  crc_unit_word,
  lanes_soft_word,
  lanes_unit_word,
  wide_lanes_soft_word,
  wide_lanes_unit_word,
  l2_word
};
inline constexpr int kDigestWords = 10;

// One block's results. crc_unit is the CRC32C of the same stream computed by another unit than
// crc_soft's bit-by-bit loop (a CPU's crc32 instruction, a GPU's shared-memory table), so a core
// that disagrees with itself is named without any other core's help. lanes_soft and lanes_unit are
// four FP64 FMA chains computed one after another and by the CPU's vector FMA unit (CPU only: a
// GPU's lanes are its threads, so both stay 0 there); wide_lanes_soft and wide_lanes_unit the same
// four lanes twice, one after another and in one 512-bit register (AVX-512: both halves of the
// unit on the same data), 0 on a GPU too. l2_word is the fold of the block's L2 word stream as a
// block on another SM read it back from L2 (bench/sdc/l2_pattern.hpp; GPU only: 0 on a CPU).
struct BlockDigest {
  std::uint64_t words[kDigestWords] = {};
};

FABCHECK_SDC_HD inline bool same_digest(const BlockDigest& a, const BlockDigest& b) {
  for (int w = 0; w < kDigestWords; ++w) {
    if (a.words[w] != b.words[w]) return false;
  }
  return true;
}

// How long each chain of a block runs, how many words its CRC covers and how many words of its L2
// stream a GPU writes and reads back (set from the GPU's L2 size; 0 on a CPU).
struct ChainShape {
  std::uint32_t steps = 1u << 14;
  std::uint32_t crc_words = 1u << 10;
  std::uint32_t l2_words = 0;
};

FABCHECK_SDC_HD inline std::uint64_t rotate_left(std::uint64_t x, unsigned r) {
  return (x << r) | (x >> (64u - r));
}

// splitmix64's finaliser (Steele, Lea, Flood 2014).
FABCHECK_SDC_HD inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The seed of block `block` of a screen seeded with `run_seed`.
FABCHECK_SDC_HD inline std::uint64_t block_seed(std::uint64_t run_seed, std::uint64_t block) {
  return mix64(run_seed + (block + 1) * 0x9E3779B97F4A7C15ULL);
}

// One step of the integer chain: a wrapping multiply by an odd constant plus the step's constant,
// an xor-shift and a rotate; each a bijection, so the state never collapses and a single wrong bit
// at any step changes the result.
FABCHECK_SDC_HD inline std::uint64_t int_step(std::uint64_t x, std::uint64_t step) {
  x = x * 0xD1342543DE82EF95ULL + (step * 0x9E3779B97F4A7C15ULL | 1u);
  x ^= x >> 29;
  return rotate_left(x, 23);
}

FABCHECK_SDC_HD inline std::uint64_t int_chain(std::uint64_t seed, std::uint32_t steps) {
  std::uint64_t x = seed;
  for (std::uint32_t i = 0; i < steps; ++i) x = int_step(x, i);
  return x;
}

// A double in [-1, 1) from the top 53 bits of `bits` (as a signed number): the integer converts
// exactly and the power-of-two scale is exact, so no rounding mode or contraction can change it.
FABCHECK_SDC_HD inline double unit_double(std::uint64_t bits) {
  return static_cast<double>(static_cast<std::int64_t>(bits) >> 11) * 0x1p-52;
}

// A float in [-1, 1) from the top 24 bits of `bits`, exactly.
FABCHECK_SDC_HD inline float unit_float(std::uint64_t bits) {
  return static_cast<float>(static_cast<std::int32_t>(bits >> 32) >> 8) * 0x1p-23f;
}

FABCHECK_SDC_HD inline std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

FABCHECK_SDC_HD inline std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

// Folds one step's exact bits into a running hash (every step counts, not only the last: an FMA
// chain with factors below 1 forgets an early error, the hash of its steps does not).
FABCHECK_SDC_HD inline std::uint64_t fold(std::uint64_t hash, std::uint64_t bits) {
  return (hash ^ bits) * 0x100000001B3ULL;
}

// The one rounding an FMA chain does: IEEE 754's fusedMultiplyAdd (on a GPU the fma instruction,
// on the host the compiler's builtin, which glibc's fma or the CPU's FMA unit computes exactly).
FABCHECK_SDC_HD inline double fused(double x, double a, double b) {
#if defined(__CUDA_ARCH__)
  return ::fma(x, a, b);
#else
  return __builtin_fma(x, a, b);
#endif
}
FABCHECK_SDC_HD inline float fused(float x, float a, float b) {
#if defined(__CUDA_ARCH__)
  return ::fmaf(x, a, b);
#else
  return __builtin_fmaf(x, a, b);
#endif
}
FABCHECK_SDC_HD inline double unit_of(std::uint64_t bits, double) { return unit_double(bits); }
FABCHECK_SDC_HD inline float unit_of(std::uint64_t bits, float) { return unit_float(bits); }

// x = fma(x, a, b) with fresh a, b in [-1, 1) each step from the integer stream (|x| stays below
// ~1/(1-|a|), never overflows), starting from the stream's `start`; the hash of every step's bits.
template <typename Real>
FABCHECK_SDC_HD inline std::uint64_t fma_chain(std::uint64_t stream, std::uint64_t start,
                                               std::uint32_t steps) {
  Real x = unit_of(start, Real{});
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (std::uint32_t i = 0; i < steps; ++i) {
    stream = int_step(stream, i);
    x = fused(x, unit_of(stream, Real{}), unit_of(rotate_left(stream, 32), Real{}));
    hash = fold(hash, bits_of(x));
  }
  return hash;
}

// The FP64 FMA pipes of an SM, the scalar FMA unit of a core.
FABCHECK_SDC_HD inline std::uint64_t fp64_chain(std::uint64_t seed, std::uint32_t steps) {
  return fma_chain<double>(seed, mix64(seed ^ 0xF64ULL), steps);
}

// The same in FP32 (fmaf): the FP32 FMA pipes of a GPU.
FABCHECK_SDC_HD inline std::uint64_t fp32_chain(std::uint64_t seed, std::uint32_t steps) {
  return fma_chain<float>(seed ^ 0xF32F32F32ULL, mix64(seed ^ 0xF32ULL), steps);
}

// Four FP64 FMA chains side by side (lane l from its own stream): what a vector FMA unit computes
// in one register; the lanes' hashes folded in lane order.
inline constexpr int kFmaLanes = 4;
FABCHECK_SDC_HD inline std::uint64_t lane_stream(std::uint64_t seed, int lane) {
  return mix64(seed ^ (0x1A4E0000ULL + static_cast<std::uint64_t>(lane)));
}
FABCHECK_SDC_HD inline std::uint64_t lane_start(std::uint64_t stream) {
  return mix64(stream ^ 0xF64ULL);
}
// Each lane's chain hash, in lane order.
FABCHECK_SDC_HD inline void fp64_lane_hashes(std::uint64_t seed, std::uint32_t steps,
                                             std::uint64_t hashes[kFmaLanes]) {
  for (int lane = 0; lane < kFmaLanes; ++lane) {
    const std::uint64_t stream = lane_stream(seed, lane);
    hashes[lane] = fma_chain<double>(stream, lane_start(stream), steps);
  }
}
// The lanes' hashes folded in lane order, `times` over (2: the eight lanes of a 512-bit register
// holding the four twice).
FABCHECK_SDC_HD inline std::uint64_t fold_lanes(const std::uint64_t hashes[kFmaLanes],
                                                int times = 1) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (int round = 0; round < times; ++round) {
    for (int lane = 0; lane < kFmaLanes; ++lane) hash = fold(hash, hashes[lane]);
  }
  return hash;
}
FABCHECK_SDC_HD inline std::uint64_t fp64_lanes(std::uint64_t seed, std::uint32_t steps) {
  std::uint64_t hashes[kFmaLanes];
  fp64_lane_hashes(seed, steps, hashes);
  return fold_lanes(hashes);
}

// Word `index` of a block's CRC stream.
FABCHECK_SDC_HD inline std::uint64_t crc_stream_word(std::uint64_t seed, std::uint32_t index) {
  return mix64(seed ^ (0xC3C3C3C3ULL + index));
}

// CRC32C (Castagnoli, reflected polynomial 0x82F63B78) bit by bit: the reference every other CRC
// unit is compared with. `crc` is the running value before the usual inversion.
FABCHECK_SDC_HD inline std::uint32_t crc32c_bitwise_update(std::uint32_t crc, std::uint64_t word) {
  for (int byte = 0; byte < 8; ++byte) {
    crc ^= static_cast<std::uint32_t>((word >> (8 * byte)) & 0xFFu);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return crc;
}

// CRC32C of the block's `words` stream words, little-endian bytes, bit by bit.
FABCHECK_SDC_HD inline std::uint32_t crc32c_of_stream(std::uint64_t seed, std::uint32_t words) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::uint32_t i = 0; i < words; ++i)
    crc = crc32c_bitwise_update(crc, crc_stream_word(seed, i));
  return ~crc;
}

// Entry `n` of the byte-at-a-time CRC32C table (a GPU keeps the 256 of them in shared memory).
FABCHECK_SDC_HD inline std::uint32_t crc32c_table_entry(std::uint32_t n) {
  std::uint32_t crc = n;
  for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  return crc;
}

// CRC32C of the block's stream a byte at a time through `table` (256 crc32c_table_entry values):
// another unit than the bit loop (on a GPU, shared-memory loads), the same result.
FABCHECK_SDC_HD inline std::uint32_t crc32c_of_stream_by_table(std::uint64_t seed,
                                                               std::uint32_t words,
                                                               const std::uint32_t* table) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::uint32_t i = 0; i < words; ++i) {
    const std::uint64_t word = crc_stream_word(seed, i);
    for (int byte = 0; byte < 8; ++byte) {
      crc = table[(crc ^ static_cast<std::uint32_t>(word >> (8 * byte))) & 0xFFu] ^ (crc >> 8);
    }
  }
  return ~crc;
}

// Every chain of one block except crc_unit, which the caller's own CRC unit fills in.
FABCHECK_SDC_HD inline BlockDigest chains_of_block(std::uint64_t seed, const ChainShape& shape) {
  BlockDigest digest;
  digest.words[int_chain_word] = int_chain(seed, shape.steps);
  digest.words[fp64_chain_word] = fp64_chain(seed, shape.steps);
  digest.words[fp32_chain_word] = fp32_chain(seed, shape.steps);
  digest.words[crc_soft_word] = crc32c_of_stream(seed, shape.crc_words);
  return digest;
}

}  // namespace fabcheck::sdc
