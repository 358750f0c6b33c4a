// ScopedDevice: makes a CUDA device current for a scope and restores the one an enclosing scope of
// this thread chose. Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

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

}  // namespace fabcheck
