// Kernels that fill NCCL inputs with verify::input_value and count outputs that differ from
// verify::expected_output under a collective's output rule, with one atomic add per warp.
#include "bench/coll/nccl_verify_kernels.hpp"
#include "bench/coll/verification.hpp"

namespace fabcheck {

namespace {

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 8192;

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < kMaxBlocks ? (wanted > 0 ? wanted : 1) : kMaxBlocks);
}

__device__ std::uint64_t first_index() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ std::uint64_t grid_stride() {
  return static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
}

__global__ void fill_input_kernel(float* data, std::uint64_t count, int rank, std::uint32_t seed) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) {
    data[i] = verify::input_value(rank, i, seed);
  }
}

// No input and no sum of inputs is negative.
constexpr float kPoison = -1.0f;

__global__ void fill_value_kernel(float* data, std::uint64_t count, float value) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) data[i] = value;
}

__global__ void count_wrong_kernel(const float* output, std::uint64_t count,
                                   verify::OutputRule rule, int rank, int nranks,
                                   std::uint64_t send_count, std::uint64_t recv_count,
                                   std::uint32_t seed, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) {
    const float expected =
        verify::expected_output(rule, rank, nranks, send_count, recv_count, i, seed);
    if (!(output[i] == expected)) ++mine;
  }
  for (int offset = 16; offset > 0; offset /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(wrong, mine);
}

}  // namespace

cudaError_t launch_fill_input(float* data, std::uint64_t count, int rank, std::uint32_t seed,
                              cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  fill_input_kernel<<<blocks_for(count), kThreads, 0, stream>>>(data, count, rank, seed);
  return cudaGetLastError();
}

cudaError_t launch_poison(float* data, std::uint64_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  fill_value_kernel<<<blocks_for(count), kThreads, 0, stream>>>(data, count, kPoison);
  return cudaGetLastError();
}

cudaError_t launch_count_wrong(const float* output, std::uint64_t count,
                               const verify::OutputRule& rule, int rank, int nranks,
                               std::uint64_t send_count, std::uint64_t recv_count,
                               std::uint32_t seed, unsigned long long* wrong, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  count_wrong_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
      output, count, rule, rank, nranks, send_count, recv_count, seed, wrong);
  return cudaGetLastError();
}

}  // namespace fabcheck
