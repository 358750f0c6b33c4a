// A cuBLASLt test double for gpu.gemm's FP8 hash (kernels/fp8_gemm.hpp), as a CublasLtLibrary whose
// functions compute what the real ones define on the fake CUDA's host memory: FP8 E4M3 A (which
// must be transposed) times E4M3 B, scaled by the scale pointers' values, summed in float over k in
// order and rounded to bf16; one algorithm from the heuristic (id 66, tile 20, stages 12, split-k
// 1, inner shape 3, cluster shape 2). Like the real one it refuses (CUBLAS_STATUS_NOT_SUPPORTED) an
// FP8 A that is not transposed. It records what it was asked.
#pragma once

#include <cstddef>

#include "bench/cuda/cublaslt_library.hpp"

namespace fabcheck::fake_cuda {

// What the FP8 hash asked of the fake cuBLASLt since reset_cublaslt.
struct LtCalls {
  int heuristics = 0;
  int matmuls = 0;
  float a_scale = 0;  // the values behind the scale pointers at the last matmul
  float b_scale = 0;
  int a_type = -1;  // cudaDataType of the last matmul's layouts
  int d_type = -1;
  std::size_t workspace = 0;  // the heuristic's CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
};

// The fake library: ok, path "/fake/libcublasLt.so.13.0.0".
CublasLtLibrary fake_cublaslt();

// Forget the calls; the matmul number `flip_at` (1-based, counted over every GPU; 0: none) leaves
// bit 0 of D's first element flipped, as a tensor core gone wrong would; `no_algorithm`: the
// heuristic finds none.
void reset_cublaslt(int flip_at = 0, bool no_algorithm = false);
LtCalls cublaslt_calls();

}  // namespace fabcheck::fake_cuda
