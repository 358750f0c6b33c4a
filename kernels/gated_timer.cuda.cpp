// GatedTimer: CUDA events behind a spin gate; the work starts when the host releases the gate.
#include "kernels/gated_timer.hpp"

#include "kernels/kernels.cuh"

namespace fabcheck {
namespace {

// About 10 s at 2 GHz: a gate the host never releases (a crashed enqueue) lets go by itself.
constexpr long long kGateTimeoutCycles = 20'000'000'000LL;

}  // namespace

GatedTimer::GatedTimer() : flag_(sizeof(int), true) {
  FABCHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flag_), flag_.get(), 0));
}

float GatedTimer::time_ms(const std::vector<cudaStream_t>& streams,
                          const std::function<void()>& enqueue) {
  volatile int* release = flag_.get<int>();
  *release = 0;
  const cudaStream_t primary = streams.front();
  FABCHECK_CUDA(kernels::launch_spin_gate(device_flag_, kGateTimeoutCycles, primary));
  FABCHECK_CUDA(cudaEventRecord(start_.get(), primary));
  while (joins_.size() < streams.size()) joins_.push_back(std::make_unique<Event>());
  for (std::size_t i = 1; i < streams.size(); ++i) {
    FABCHECK_CUDA(cudaStreamWaitEvent(streams[i], start_.get(), 0));
  }
  enqueue();
  for (std::size_t i = 1; i < streams.size(); ++i) {
    FABCHECK_CUDA(cudaEventRecord(joins_[i]->get(), streams[i]));
    FABCHECK_CUDA(cudaStreamWaitEvent(primary, joins_[i]->get(), 0));
  }
  FABCHECK_CUDA(cudaEventRecord(stop_.get(), primary));
  *release = 1;
  FABCHECK_CUDA(cudaEventSynchronize(stop_.get()));
  float elapsed_ms = 0;
  FABCHECK_CUDA(cudaEventElapsedTime(&elapsed_ms, start_.get(), stop_.get()));
  return elapsed_ms;
}

}  // namespace fabcheck

namespace fabcheck {

std::vector<double> gated_samples_s(GatedTimer& timer, const std::vector<cudaStream_t>& streams,
                                    int warmup, int iters, const std::function<void()>& enqueue) {
  for (int i = 0; i < warmup; ++i) timer.time_ms(streams, enqueue);
  std::vector<double> samples;
  for (int i = 0; i < (iters > 0 ? iters : 1); ++i) {
    samples.push_back(static_cast<double>(timer.time_ms(streams, enqueue)) * 1e-3);
  }
  return samples;
}

}  // namespace fabcheck
