// gpu.launch_latency: the host-side cost of launching an empty kernel (median over batches of
// launches), and launch plus completion (median of single round trips); light, so not waived on an
// unfit node.
#include "kernels/gpu_probe.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include <algorithm>

#include "bench/core/stats.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "bench/sys/timer.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/kernels.cuh"
#endif

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.launch_latency";

#if defined(FABCHECK_HAVE_CUDA)
constexpr int kLaunchesPerBatch = 100;
constexpr int kMinSamples = 200;

Measurement latency_measurement(const GpuLabel& label, const char* metric,
                                const std::vector<double>& samples_us) {
  const SampleStats stats = compute_stats(samples_us);
  Measurement m = gpu_measurement(label, kProbe, metric, stats.median, "us");
  m.stats = stats;
  return m;
}

void measure(const GpuLabel& label, const RunOptions& options, MeasurementSink& sink) {
  Stream stream;
  const int samples = std::max(options.iters, kMinSamples);
  // long long: --warmup may be as large as an int holds, times the batch it is not.
  const long long warm_up_launches =
      static_cast<long long>(std::max(options.warmup, 1)) * kLaunchesPerBatch;
  for (long long i = 0; i < warm_up_launches; ++i) {
    FABCHECK_CUDA(kernels::launch_empty(stream.get()));
  }
  FABCHECK_CUDA(cudaStreamSynchronize(stream.get()));

  std::vector<double> launch_us;
  for (int s = 0; s < samples; ++s) {
    Stopwatch watch;
    for (int i = 0; i < kLaunchesPerBatch; ++i) FABCHECK_CUDA(kernels::launch_empty(stream.get()));
    launch_us.push_back(watch.elapsed_s() * 1e6 / kLaunchesPerBatch);
    FABCHECK_CUDA(cudaStreamSynchronize(stream.get()));
  }
  sink.emit(latency_measurement(label, "launch_us", launch_us));

  std::vector<double> round_trip_us;
  for (int s = 0; s < samples; ++s) {
    Stopwatch watch;
    FABCHECK_CUDA(kernels::launch_empty(stream.get()));
    FABCHECK_CUDA(cudaStreamSynchronize(stream.get()));
    round_trip_us.push_back(watch.elapsed_s() * 1e6);
  }
  sink.emit(latency_measurement(label, "launch_sync_us", round_trip_us));
}

void run_launch_latency(RunContext& context, MeasurementSink& sink) {
  for (int ordinal : devices_of_this_rank(context.world)) {
    ScopedDevice device(ordinal);
    context.world.mark_progress();
    measure(cuda_device_label(ordinal), context.options, sink);
  }
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_launch_latency_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "kernel launch cost: an empty kernel's launch (host side), and launch plus completion",
       .metrics = {lower_better("launch_us", "us"), lower_better("launch_sync_us", "us")},
       .heavy = false,
       .body = FABCHECK_GPU_BODY(run_launch_latency)});
}

}  // namespace fabcheck
