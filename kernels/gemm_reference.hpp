// Host reference for checking GEMM results: the inputs gpu.gemm generates (pattern_float, rounded
// as the GPU stores them) and the expected value of one output element with its tolerance.
#pragma once

#include <cstdint>

namespace fabcheck {

// Round to the nearest bf16 (ties to even), returned as a float; and bf16 bits to float.
float round_to_bf16(float value);
float bf16_bits_to_float(std::uint16_t bits);

struct GemmElementCheck {
  double expected = 0;   // sum over k of A(i,k) * B(k,j), in double from the stored inputs
  double tolerance = 0;  // allowed |observed - expected|
};

// C = A * B, all n x n column-major, A(r,c) = pattern_float(seed_a, r + c*n) (bf16-rounded when
// `bf16`), B likewise with seed_b. The tolerance covers bf16 output rounding and tf32 input
// rounding (|expected| / 64 + 1e-4 of the sum of |A(i,k) * B(k,j)|); a wrong or missing result
// is far outside it.
GemmElementCheck gemm_element_check(std::uint64_t seed_a, std::uint64_t seed_b, int n, int row,
                                    int column, bool bf16);

}  // namespace fabcheck
