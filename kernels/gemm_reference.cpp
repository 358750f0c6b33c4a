// Host reference values for one GEMM output element, from the generated inputs.
#include "kernels/gemm_reference.hpp"

#include <cmath>
#include <cstring>

#include "kernels/random_pattern.hpp"

namespace fabcheck {

float round_to_bf16(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if (std::isnan(value)) return value;
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  bits = (bits + rounding) & 0xFFFF0000u;
  float rounded = 0;
  std::memcpy(&rounded, &bits, sizeof rounded);
  return rounded;
}

float bf16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

GemmElementCheck gemm_element_check(std::uint64_t seed_a, std::uint64_t seed_b, int n, int row,
                                    int column, bool bf16) {
  GemmElementCheck check;
  double magnitude = 0;
  const auto size = static_cast<std::uint64_t>(n);
  for (std::uint64_t k = 0; k < size; ++k) {
    float a = pattern_float(seed_a, static_cast<std::uint64_t>(row) + k * size);
    float b = pattern_float(seed_b, k + static_cast<std::uint64_t>(column) * size);
    if (bf16) {
      a = round_to_bf16(a);
      b = round_to_bf16(b);
    }
    const double product = static_cast<double>(a) * static_cast<double>(b);
    check.expected += product;
    magnitude += std::fabs(product);
  }
  // bf16 output keeps 8 significant bits (relative 2^-8, allowed 2^-6); fp32 accumulation and
  // tf32 input rounding stay within 1e-4 of the sum of magnitudes for any n fabcheck uses.
  check.tolerance = std::fabs(check.expected) / 64 + 1e-4 * magnitude;
  return check;
}

}  // namespace fabcheck
