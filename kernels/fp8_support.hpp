// Whether a GPU can run gpu.gemm's FP8 GEMM hash, no CUDA needed: FP8 (E4M3) tensor cores from
// compute capability 8.9 (Ada) and 9.0 (Hopper) on; on an older GPU the hash is waived, never
// passed.
#pragma once

#include <string>

namespace fabcheck {

inline constexpr const char* kFp8Dtype = "fp8";

// "" where a GPU of compute capability major.minor has FP8 tensor cores (8.9, 9.0 and later);
// otherwise the waiver's reason: "compute capability 8.0 has no FP8 tensor cores (FP8 GEMMs need
// 8.9 or 9.0 and later)".
std::string fp8_waiver(int major, int minor);

// The FP8 GEMM's M = N = K from gpu.gemm's size: rounded down to a multiple of 16, as cuBLASLt's
// FP8 kernels need.
int fp8_gemm_size(int gemm_size);

}  // namespace fabcheck
