// Kernels that fill NCCL inputs with verify::input_bits and count outputs whose bits differ from
// verify::expected_bits under a collective's output rule, with one atomic add per warp. Each
// kernel is a template over the element's storage word (1, 2, 4 or 8 bytes): the rule gives an
// element's bits, so every type of one width shares one instance.
#include "bench/coll/nccl_verify_kernels.hpp"

#include <type_traits>

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

template <typename Word>
__global__ void fill_input_kernel(Word* data, std::uint64_t count, verify::Element element,
                                  int nranks, int rank, std::uint32_t seed) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) {
    data[i] = static_cast<Word>(verify::input_bits(element, nranks, rank, i, seed));
  }
}

template <typename Word>
__global__ void fill_value_kernel(Word* data, std::uint64_t count, Word value) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) data[i] = value;
}

template <typename Word>
__global__ void count_wrong_kernel(const Word* output, std::uint64_t count, verify::OutputRule rule,
                                   verify::Element element, int rank, int nranks,
                                   std::uint64_t send_count, std::uint64_t recv_count,
                                   std::uint32_t seed, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) {
    const auto expected = static_cast<Word>(
        verify::expected_bits(rule, element, rank, nranks, send_count, recv_count, i, seed));
    if (output[i] != expected) ++mine;
  }
  for (int offset = 16; offset > 0; offset /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(wrong, mine);
}

// Calls `launch` with a null pointer of the storage word of `type` (the template's argument).
template <typename Launch>
cudaError_t by_width(verify::DataType type, Launch&& launch) {
  switch (verify::element_bytes(type)) {
    case 1:
      return launch(static_cast<std::uint8_t*>(nullptr));
    case 2:
      return launch(static_cast<std::uint16_t*>(nullptr));
    case 4:
      return launch(static_cast<std::uint32_t*>(nullptr));
    default:
      return launch(static_cast<std::uint64_t*>(nullptr));
  }
}

}  // namespace

cudaError_t launch_fill_input(void* data, std::uint64_t count, const verify::Element& element,
                              int nranks, int rank, std::uint32_t seed, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return by_width(element.type, [&](auto* word) {
    using Word = std::remove_pointer_t<decltype(word)>;
    fill_input_kernel<Word><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<Word*>(data), count, element, nranks, rank, seed);
    return cudaGetLastError();
  });
}

cudaError_t launch_poison(void* data, std::uint64_t count, verify::DataType type,
                          cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return by_width(type, [&](auto* word) {
    using Word = std::remove_pointer_t<decltype(word)>;
    fill_value_kernel<Word><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<Word*>(data), count, static_cast<Word>(verify::poison_bits(type)));
    return cudaGetLastError();
  });
}

cudaError_t launch_count_wrong(const void* output, std::uint64_t count,
                               const verify::OutputRule& rule, const verify::Element& element,
                               int rank, int nranks, std::uint64_t send_count,
                               std::uint64_t recv_count, std::uint32_t seed,
                               unsigned long long* wrong, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return by_width(element.type, [&](auto* word) {
    using Word = std::remove_pointer_t<decltype(word)>;
    count_wrong_kernel<Word><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<const Word*>(output), count, rule, element, rank, nranks, send_count,
        recv_count, seed, wrong);
    return cudaGetLastError();
  });
}

}  // namespace fabcheck
