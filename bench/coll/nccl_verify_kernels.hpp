// Device-side fill and verification for the NCCL backend, as host-callable launches on a stream
// (the kernels are in nccl_verify_kernels.cu). Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bench/coll/verification.hpp"

namespace fabcheck {

// data[i] = verify::input_value(rank, i, seed) for i < count.
cudaError_t launch_fill_input(float* data, std::uint64_t count, int rank, std::uint32_t seed,
                              cudaStream_t stream);
// data[i] = a value no output can hold (negative), for i < count.
cudaError_t launch_poison(float* data, std::uint64_t count, cudaStream_t stream);
// Adds to *wrong (device memory) the number of output[i], i < count, that differ from
// verify::expected_output under `rule` at `rank` of `nranks`, for a shape's counts.
cudaError_t launch_count_wrong(const float* output, std::uint64_t count,
                               const verify::OutputRule& rule, int rank, int nranks,
                               std::uint64_t send_count, std::uint64_t recv_count,
                               std::uint32_t seed, unsigned long long* wrong, cudaStream_t stream);

}  // namespace fabcheck
