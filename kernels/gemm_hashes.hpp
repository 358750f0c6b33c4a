// The deterministic GEMM's output hash compared across GPUs: the same GEMM (fixed seeds and shape,
// cuBLAS's default algorithm, beta 0) on every GPU of one model, SM count, driver and cuBLAS must
// leave the same bits; a GPU whose hash moved between its own first and last GEMM, or that differs
// from the hash most of its peers give, is named. Within a run and, in `fabcheck evaluate`, across
// every run of the fleet.
#pragma once

#include <vector>

#include "results/figure_ref.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// gpu.gemm's record of the hash: 0 when the first and last GEMM's output hashes agree, 1 when not;
// params output_hash, output_hash_first, dtype (bf16, tf32, fp8), m_n_k, model, bus_id, sms,
// driver, cublas_library (for fp8 the cuBLASLt file) and, for fp8, algo (the pinned algorithm).
inline constexpr const char* kGemmHashChangesMetric = "output_hash_changes";

// FAIL for a GPU whose hash changed between its first and last GEMM; among the GPUs of one model,
// SM count, driver, cuBLAS library, type, size and algorithm (driver and library known; waived
// records, such as fp8 on a GPU without FP8, never compared), FAIL for each GPU
// whose hash differs from the strict majority's (three GPUs or more), naming the GPU, its bus id
// and host, its hash and the majority's; WARN where no hash has a majority (two GPUs that differ:
// a third is needed to tell which is wrong); PASS for each group that agrees.
std::vector<Finding> judge_gemm_hashes(const std::vector<Measurement>& measurements);

inline const std::vector<FigureRef> kGemmHashReads{{"gpu.gemm", kGemmHashChangesMetric}};

}  // namespace fabcheck
