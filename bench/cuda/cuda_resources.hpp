// Owning wrappers of CUDA device memory, pinned host memory, streams and events, each bound to the
// device current when it was made. Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <utility>

#include "bench/cuda/cuda_error.hpp"

namespace fabcheck {

// Makes `device` current for a scope, then restores the device an enclosing ScopedDevice of this
// thread made current, if any. Never "restores" a device nothing chose: cudaGetDevice answers 0
// before any choice, and since CUDA 12 cudaSetDevice creates that device's primary context, so
// restoring it would put a context (hundreds of MB, counted as another process's memory by a
// neighbour's health check) on GPU 0 of every rank.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) : previous_(chosen()) {
    FABCHECK_CUDA(cudaSetDevice(device));
    chosen() = device;
  }
  ~ScopedDevice() {
    if (previous_ && *previous_ != chosen()) (void)cudaSetDevice(*previous_);
    chosen() = previous_;
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  // The device the innermost ScopedDevice of this thread made current.
  static std::optional<int>& chosen() {
    thread_local std::optional<int> device;
    return device;
  }

  std::optional<int> previous_;
};

class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes) : bytes_(bytes) {
    FABCHECK_CUDA(cudaMalloc(&data_, bytes));
  }
  ~DeviceMemory() {
    if (data_ != nullptr) (void)cudaFree(data_);
  }
  DeviceMemory(DeviceMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  DeviceMemory& operator=(DeviceMemory&& other) noexcept {
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

// Page-locked host memory; `mapped` also maps it into the device address space (for the gate).
class PinnedMemory {
 public:
  PinnedMemory() = default;
  explicit PinnedMemory(std::size_t bytes, bool mapped = false) : bytes_(bytes) {
    FABCHECK_CUDA(
        cudaHostAlloc(&data_, bytes, mapped ? cudaHostAllocMapped : cudaHostAllocPortable));
  }
  ~PinnedMemory() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
  }
  PinnedMemory(PinnedMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  PinnedMemory& operator=(PinnedMemory&& other) noexcept {
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

class Stream {
 public:
  Stream() { FABCHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { FABCHECK_CUDA(cudaEventCreate(&event_)); }
  ~Event() { (void)cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace fabcheck
