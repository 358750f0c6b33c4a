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

// One multiply-add step of `Copies` x kFmaLanes lanes by a vector unit: x[lane] =
// fusedMultiplyAdd(x[lane], a[lane], b[lane]) (IEEE 754, lane by lane, so the same bits as
// std::fma).
template <int Copies>
using FmaStep = void (*)(double* x, const double* a, const double* b);

// The same steps as fma_chain<double> on each of the four lanes, `Copies` times over (lanes 4..7
// repeating 0..3: both halves of a wide unit on the same data), every step's multiply-add by
// `step`; each lane's steps folded into its hash, the hashes folded in order.
template <int Copies>
std::uint64_t lanes_by(std::uint64_t seed, std::uint32_t steps, FmaStep<Copies> step) {
  constexpr int kLanes = Copies * kFmaLanes;
  std::uint64_t stream[kFmaLanes];
  double x[kLanes], a[kLanes], b[kLanes];
  std::uint64_t hash[kLanes];
  for (int lane = 0; lane < kFmaLanes; ++lane) {
    stream[lane] = lane_stream(seed, lane);
    for (int copy = 0; copy < Copies; ++copy) {
      x[lane + copy * kFmaLanes] = unit_double(lane_start(stream[lane]));
    }
  }
  for (auto& h : hash) h = 0xCBF29CE484222325ULL;
  for (std::uint32_t i = 0; i < steps; ++i) {
    for (int lane = 0; lane < kFmaLanes; ++lane) {
      stream[lane] = int_step(stream[lane], i);
      for (int copy = 0; copy < Copies; ++copy) {
        a[lane + copy * kFmaLanes] = unit_double(stream[lane]);
        b[lane + copy * kFmaLanes] = unit_double(rotate_left(stream[lane], 32));
      }
    }
    step(x, a, b);
    for (int lane = 0; lane < kLanes; ++lane) hash[lane] = fold(hash[lane], bits_of(x[lane]));
  }
  std::uint64_t folded = 0xCBF29CE484222325ULL;
  for (const std::uint64_t h : hash) folded = fold(folded, h);
  return folded;
}

#if defined(__x86_64__)
// The four lanes' multiply-add in one AVX2 instruction.
__attribute__((target("avx2,fma"))) void avx2_step(double* x, const double* a, const double* b) {
  _mm256_storeu_pd(x, _mm256_fmadd_pd(_mm256_loadu_pd(x), _mm256_loadu_pd(a), _mm256_loadu_pd(b)));
}
// The four lanes twice in one 512-bit instruction.
__attribute__((target("avx512f"))) void avx512_step(double* x, const double* a, const double* b) {
  _mm512_storeu_pd(x, _mm512_fmadd_pd(_mm512_loadu_pd(x), _mm512_loadu_pd(a), _mm512_loadu_pd(b)));
}
std::uint64_t lanes_by_vector_unit(std::uint64_t seed, std::uint32_t steps) {
  return lanes_by<1>(seed, steps, avx2_step);
}
std::uint64_t lanes_by_wide_unit(std::uint64_t seed, std::uint32_t steps) {
  return lanes_by<2>(seed, steps, avx512_step);
}
bool has_unit() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
const char* unit_name() { return "avx2 fma"; }
bool has_wide_unit() { return __builtin_cpu_supports("avx512f"); }
const char* wide_unit_name() { return "avx512f"; }
#elif defined(__aarch64__)
// Lanes 0-1 and 2-3, each pair in one 128-bit NEON register: vfmaq_f64(b, x, a) is x * a + b
// rounded once.
void neon_step(double* x, const double* a, const double* b) {
  vst1q_f64(x, vfmaq_f64(vld1q_f64(b), vld1q_f64(x), vld1q_f64(a)));
  vst1q_f64(x + 2, vfmaq_f64(vld1q_f64(b + 2), vld1q_f64(x + 2), vld1q_f64(a + 2)));
}
std::uint64_t lanes_by_vector_unit(std::uint64_t seed, std::uint32_t steps) {
  return lanes_by<1>(seed, steps, neon_step);
}
// AArch64 has no FP64 unit wider than 128 bits that fabcheck uses (Grace's SVE2 vectors are
// 128 bits too): the wide lanes stay the soft ones (cpu_block).
std::uint64_t lanes_by_wide_unit(std::uint64_t, std::uint32_t) { return 0; }
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
