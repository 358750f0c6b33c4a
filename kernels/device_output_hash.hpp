// The output hash (bench/sdc/output_hash.hpp) of a buffer of device memory, computed on the device
// on a stream and read back: what gpu.gemm records of each GEMM's output. CUDA builds only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fabcheck {

// sdc::output_hash of the `bytes` / 4 32-bit words at `data` (device memory of the current
// device), after what `stream` has queued; waits for it.
std::uint64_t device_output_hash(const void* data, std::size_t bytes, cudaStream_t stream);

}  // namespace fabcheck
