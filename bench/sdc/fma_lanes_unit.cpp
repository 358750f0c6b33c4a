// The four FP64 FMA lanes in one AVX2 register (_mm256_fmadd_pd), and twice in one AVX-512
// register (_mm512_fmadd_pd), each chosen at run time; on AArch64 in two NEON registers
// (vfmaq_f64, two lanes each).
#include "bench/sdc/fma_lanes_unit.hpp"

#include "bench/sdc/sdc_chain.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

namespace fabcheck::sdc {
namespace {

#if defined(__x86_64__)
// The same steps as fma_chain<double> on each lane, the multiply-add of all four in one
// instruction: IEEE 754's fusedMultiplyAdd lane by lane, so the same bits.
__attribute__((target("avx2,fma"))) std::uint64_t lanes_by_avx2(std::uint64_t seed,
                                                                std::uint32_t steps) {
  std::uint64_t stream[kFmaLanes];
  double start[kFmaLanes];
  std::uint64_t hash[kFmaLanes];
  for (int lane = 0; lane < kFmaLanes; ++lane) {
    stream[lane] = lane_stream(seed, lane);
    start[lane] = unit_double(lane_start(stream[lane]));
    hash[lane] = 0xCBF29CE484222325ULL;
  }
  __m256d x = _mm256_loadu_pd(start);
  for (std::uint32_t i = 0; i < steps; ++i) {
    double a[kFmaLanes], b[kFmaLanes], out[kFmaLanes];
    for (int lane = 0; lane < kFmaLanes; ++lane) {
      stream[lane] = int_step(stream[lane], i);
      a[lane] = unit_double(stream[lane]);
      b[lane] = unit_double(rotate_left(stream[lane], 32));
    }
    x = _mm256_fmadd_pd(x, _mm256_loadu_pd(a), _mm256_loadu_pd(b));
    _mm256_storeu_pd(out, x);
    for (int lane = 0; lane < kFmaLanes; ++lane) hash[lane] = fold(hash[lane], bits_of(out[lane]));
  }
  std::uint64_t folded = 0xCBF29CE484222325ULL;
  for (int lane = 0; lane < kFmaLanes; ++lane) folded = fold(folded, hash[lane]);
  return folded;
}

// The same four lanes twice, lanes 4..7 repeating 0..3: the multiply-add of all eight in one
// 512-bit instruction, each half of the unit on the same data; the eight hashes folded in order.
__attribute__((target("avx512f"))) std::uint64_t lanes_by_avx512(std::uint64_t seed,
                                                                 std::uint32_t steps) {
  constexpr int kWide = 2 * kFmaLanes;
  std::uint64_t stream[kFmaLanes];
  double start[kWide];
  std::uint64_t hash[kWide];
  for (int lane = 0; lane < kFmaLanes; ++lane) {
    stream[lane] = lane_stream(seed, lane);
    start[lane] = start[lane + kFmaLanes] = unit_double(lane_start(stream[lane]));
  }
  for (auto& h : hash) h = 0xCBF29CE484222325ULL;
  __m512d x = _mm512_loadu_pd(start);
  for (std::uint32_t i = 0; i < steps; ++i) {
    double a[kWide], b[kWide], out[kWide];
    for (int lane = 0; lane < kFmaLanes; ++lane) {
      stream[lane] = int_step(stream[lane], i);
      a[lane] = a[lane + kFmaLanes] = unit_double(stream[lane]);
      b[lane] = b[lane + kFmaLanes] = unit_double(rotate_left(stream[lane], 32));
    }
    x = _mm512_fmadd_pd(x, _mm512_loadu_pd(a), _mm512_loadu_pd(b));
    _mm512_storeu_pd(out, x);
    for (int lane = 0; lane < kWide; ++lane) hash[lane] = fold(hash[lane], bits_of(out[lane]));
  }
  std::uint64_t folded = 0xCBF29CE484222325ULL;
  for (const std::uint64_t h : hash) folded = fold(folded, h);
  return folded;
}
constexpr auto* lanes_by_vector_unit = lanes_by_avx2;
constexpr auto* lanes_by_wide_unit = lanes_by_avx512;
bool has_unit() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
const char* unit_name() { return "avx2 fma"; }
bool has_wide_unit() { return __builtin_cpu_supports("avx512f"); }
const char* wide_unit_name() { return "avx512f"; }
#elif defined(__aarch64__)
// The same steps as fma_chain<double> on each lane, lanes 0-1 and 2-3 each in one 128-bit NEON
// register: vfmaq_f64(b, x, a) is x * a + b rounded once, IEEE 754's fusedMultiplyAdd lane by
// lane, so the same bits as the x86 units and the one-at-a-time chains.
std::uint64_t lanes_by_neon(std::uint64_t seed, std::uint32_t steps) {
  std::uint64_t stream[kFmaLanes];
  double start[kFmaLanes];
  std::uint64_t hash[kFmaLanes];
  for (int lane = 0; lane < kFmaLanes; ++lane) {
    stream[lane] = lane_stream(seed, lane);
    start[lane] = unit_double(lane_start(stream[lane]));
    hash[lane] = 0xCBF29CE484222325ULL;
  }
  float64x2_t low = vld1q_f64(start);
  float64x2_t high = vld1q_f64(start + 2);
  for (std::uint32_t i = 0; i < steps; ++i) {
    double a[kFmaLanes], b[kFmaLanes], out[kFmaLanes];
    for (int lane = 0; lane < kFmaLanes; ++lane) {
      stream[lane] = int_step(stream[lane], i);
      a[lane] = unit_double(stream[lane]);
      b[lane] = unit_double(rotate_left(stream[lane], 32));
    }
    low = vfmaq_f64(vld1q_f64(b), low, vld1q_f64(a));
    high = vfmaq_f64(vld1q_f64(b + 2), high, vld1q_f64(a + 2));
    vst1q_f64(out, low);
    vst1q_f64(out + 2, high);
    for (int lane = 0; lane < kFmaLanes; ++lane) hash[lane] = fold(hash[lane], bits_of(out[lane]));
  }
  std::uint64_t folded = 0xCBF29CE484222325ULL;
  for (int lane = 0; lane < kFmaLanes; ++lane) folded = fold(folded, hash[lane]);
  return folded;
}
// AArch64 has no FP64 unit wider than 128 bits that fabcheck uses (Grace's SVE2 vectors are
// 128 bits too): the wide lanes stay the soft ones (cpu_block).
std::uint64_t no_wide_lanes(std::uint64_t, std::uint32_t) { return 0; }
constexpr auto* lanes_by_vector_unit = lanes_by_neon;
constexpr auto* lanes_by_wide_unit = no_wide_lanes;
bool has_unit() { return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0; }
const char* unit_name() { return "neon fma"; }
bool has_wide_unit() { return false; }
const char* wide_unit_name() { return ""; }
#else
std::uint64_t lanes_by_vector_unit(std::uint64_t, std::uint32_t) { return 0; }
std::uint64_t lanes_by_wide_unit(std::uint64_t, std::uint32_t) { return 0; }
bool has_unit() { return false; }
const char* unit_name() { return ""; }
bool has_wide_unit() { return false; }
const char* wide_unit_name() { return ""; }
#endif

}  // namespace

const char* fma_lanes_unit_name() {
  static const bool available = has_unit();
  return available ? unit_name() : "";
}

std::uint64_t fp64_lanes_by_unit(std::uint64_t seed, std::uint32_t steps) {
  static const bool available = has_unit();
  return available ? lanes_by_vector_unit(seed, steps) : 0;
}

const char* wide_fma_lanes_unit_name() {
  static const bool available = has_wide_unit();
  return available ? wide_unit_name() : "";
}

std::uint64_t wide_fp64_lanes_by_unit(std::uint64_t seed, std::uint32_t steps) {
  static const bool available = has_wide_unit();
  return available ? lanes_by_wide_unit(seed, steps) : 0;
}

}  // namespace fabcheck::sdc
