// gpu.gemm's FP8 output hash: a deterministic FP8 GEMM (E4M3 inputs, A transposed as cuBLASLt's FP8
// kernels need, unit scales, bf16 output, fixed seeds and size) through cublasLtMatmul with one
// algorithm pinned (the heuristic's first for a fixed workspace), hashed after its first and last
// GEMM and recorded with the algorithm and the versions that made it. CUDA builds only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "bench/cuda/cublaslt_library.hpp"

namespace fabcheck {

// The FP8 GEMM's inputs.
inline constexpr std::uint64_t kFp8SeedA = 0x6670'3861;
inline constexpr std::uint64_t kFp8SeedB = 0x6670'3862;
// GEMMs between the first hash and the last.
inline constexpr int kFp8Gemms = 20;
// The workspace the heuristic chooses for and the GEMM gets.
inline constexpr std::size_t kFp8WorkspaceBytes = std::size_t{32} << 20;

// For each GPU of `ordinals`, one gpu.gemm output_hash_changes record of dtype fp8 (0: the first
// and last GEMM's hashes agree), with params output_hash, output_hash_first, m_n_k, seeds, model,
// bus_id, sms, driver, cublas_library (the cuBLASLt file) and algo ("id 66 tile 20 stages 12
// splitk 1 reduction 0 swizzle 0 custom 0 inner 3 cluster 2"); WAIVED, with the reason, on a GPU
// without FP8 tensor cores (fp8_waiver) and on every GPU where `cublaslt` did not load; an ERROR
// record naming the call where cuBLASLt refuses the GEMM (no algorithm, say).
void emit_fp8_hashes(const std::vector<int>& ordinals, int gemm_size,
                     const CublasLtLibrary& cublaslt, MeasurementSink& sink);

}  // namespace fabcheck
