// CudaMemory: one owning wrapper of a CUDA allocation over its allocate/free pair, bound to the
// device current when it was made: DeviceMemory (cudaMalloc) and PinnedMemory (page-locked host
// memory, cudaHostAlloc). Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "bench/cuda/cuda_error.hpp"

namespace fabcheck {

// `Allocation` gives `static void* allocate(std::size_t bytes)` (throws on failure) and
// `static void release(void* data)`.
template <typename Allocation>
class CudaMemory {
 public:
  CudaMemory() = default;
  explicit CudaMemory(std::size_t bytes) : data_(Allocation::allocate(bytes)), bytes_(bytes) {}
  ~CudaMemory() {
    if (data_ != nullptr) Allocation::release(data_);
  }
  CudaMemory(CudaMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  CudaMemory& operator=(CudaMemory&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

struct DeviceAllocation {
  static void* allocate(std::size_t bytes) {
    void* data = nullptr;
    FABCHECK_CUDA(cudaMalloc(&data, bytes));
    return data;
  }
  static void release(void* data) { (void)cudaFree(data); }
};

// Portable: page-locked for every device's copy engines, not only the current one's.
struct PinnedAllocation {
  static void* allocate(std::size_t bytes) {
    void* data = nullptr;
    FABCHECK_CUDA(cudaHostAlloc(&data, bytes, cudaHostAllocPortable));
    return data;
  }
  static void release(void* data) { (void)cudaFreeHost(data); }
};

using DeviceMemory = CudaMemory<DeviceAllocation>;
using PinnedMemory = CudaMemory<PinnedAllocation>;

}  // namespace fabcheck
