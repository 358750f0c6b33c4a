// GatedTimer: times work on one or more streams of one GPU with CUDA events, the work queued
// behind a spin kernel that holds the streams until everything is queued (nvbandwidth's approach),
// so launch and queuing cost stay out of the interval. Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <vector>

#include "kernels/cuda_resources.hpp"

namespace fabcheck {

class GatedTimer {
 public:
  // On the current device.
  GatedTimer();
  GatedTimer(const GatedTimer&) = delete;
  GatedTimer& operator=(const GatedTimer&) = delete;

  // Milliseconds from the start of the first stream's work to the end of every stream's work:
  // `enqueue` queues the work (asynchronously) on `streams`; streams[0] carries the gate and the
  // events, the others join it through events. Waits for completion.
  float time_ms(const std::vector<cudaStream_t>& streams, const std::function<void()>& enqueue);

 private:
  PinnedMemory flag_;  // host-mapped int the gate spins on
  int* device_flag_ = nullptr;
  Event start_;
  Event stop_;
  std::vector<std::unique_ptr<Event>> joins_;  // one per extra stream
};

}  // namespace fabcheck

namespace fabcheck {

// `warmup` untimed runs of `enqueue`, then `iters` timed ones (at least one): seconds each.
std::vector<double> gated_samples_s(GatedTimer& timer, const std::vector<cudaStream_t>& streams,
                                    int warmup, int iters, const std::function<void()>& enqueue);

}  // namespace fabcheck
