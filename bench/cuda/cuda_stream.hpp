// Owning wrappers of a CUDA stream (non-blocking) and an event, each bound to the device current
// when it was made. Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include "bench/cuda/cuda_error.hpp"

namespace fabcheck {

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
