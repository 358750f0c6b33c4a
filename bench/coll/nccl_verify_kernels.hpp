// Device-side fill and verification for the NCCL backend, as host-callable launches on a stream
// (the kernels are in nccl_verify_kernels.cu). Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bench/coll/verification.hpp"

namespace fabcheck {

// Element i < count of `data` (of element.type) = verify::input_bits(element, nranks, rank, i,
// seed).
cudaError_t launch_fill_input(void* data, std::uint64_t count, const verify::Element& element,
                              int nranks, int rank, std::uint32_t seed, cudaStream_t stream);
// Element i < count of `data` = verify::poison_bits(type).
cudaError_t launch_poison(void* data, std::uint64_t count, verify::DataType type,
                          cudaStream_t stream);
// Adds to *wrong (device memory) the number of elements i < count of `output` whose bits differ
// from verify::expected_bits under `rule` for `element` at `rank` of `nranks`, for a shape's
// counts.
cudaError_t launch_count_wrong(const void* output, std::uint64_t count,
                               const verify::OutputRule& rule, const verify::Element& element,
                               int rank, int nranks, std::uint64_t send_count,
                               std::uint64_t recv_count, std::uint32_t seed,
                               unsigned long long* wrong, cudaStream_t stream);

}  // namespace fabcheck
