// Wrong-element counts computed on the GPU, read back to the host.
#include "kernels/device_verification.hpp"

#include "bench/cuda/cuda_memory.hpp"
#include "kernels/kernels.cuh"

namespace fabcheck {
namespace {

template <typename Launch>
std::uint64_t count_with(cudaStream_t stream, const Launch& launch) {
  DeviceMemory wrong(sizeof(unsigned long long));
  FABCHECK_CUDA(cudaMemsetAsync(wrong.get(), 0, sizeof(unsigned long long), stream));
  FABCHECK_CUDA(launch(wrong.get<unsigned long long>()));
  unsigned long long count = 0;
  FABCHECK_CUDA(cudaMemcpyAsync(&count, wrong.get(), sizeof count, cudaMemcpyDeviceToHost, stream));
  FABCHECK_CUDA(cudaStreamSynchronize(stream));
  return count;
}

}  // namespace

std::uint64_t device_pattern_mismatches(const std::uint64_t* data, std::size_t count,
                                        std::uint64_t seed, cudaStream_t stream) {
  return count_with(stream, [&](unsigned long long* wrong) {
    return kernels::launch_count_pattern_mismatches(data, count, seed, wrong, stream);
  });
}

std::uint64_t device_triad_mismatches(const std::uint64_t* a, std::size_t count,
                                      std::uint64_t seed_b, std::uint64_t seed_c,
                                      std::uint64_t scalar, cudaStream_t stream) {
  return count_with(stream, [&](unsigned long long* wrong) {
    return kernels::launch_count_triad_mismatches(a, count, seed_b, seed_c, scalar, wrong, stream);
  });
}

}  // namespace fabcheck
