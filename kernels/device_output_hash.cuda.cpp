// A device buffer's output hash: kernels::launch_hash_words into device memory, copied back.
#include "kernels/device_output_hash.hpp"

#include "bench/cuda/cuda_memory.hpp"
#include "kernels/kernels.cuh"

namespace fabcheck {

std::uint64_t device_output_hash(const void* data, std::size_t bytes, cudaStream_t stream) {
  DeviceMemory hash(sizeof(unsigned long long));
  FABCHECK_CUDA(cudaMemsetAsync(hash.get(), 0, hash.bytes(), stream));
  FABCHECK_CUDA(kernels::launch_hash_words(static_cast<const std::uint32_t*>(data), bytes / 4,
                                           hash.get<unsigned long long>(), stream));
  unsigned long long value = 0;
  FABCHECK_CUDA(cudaMemcpyAsync(&value, hash.get(), sizeof value, cudaMemcpyDeviceToHost, stream));
  FABCHECK_CUDA(cudaStreamSynchronize(stream));
  return value;
}

}  // namespace fabcheck
