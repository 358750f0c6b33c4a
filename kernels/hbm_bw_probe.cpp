// gpu.hbm_bw: device memory bandwidth (bytes read + written) by SM copy, STREAM triad and
// cudaMemcpy device-to-device, every result verified.
#include "kernels/gpu_probe.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "kernels/bandwidth_sample.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/device_verification.hpp"
#include "kernels/gated_timer.hpp"
#include "kernels/gpu_options.hpp"
#include "kernels/kernels.cuh"
#endif

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.hbm_bw";

#if defined(FABCHECK_HAVE_CUDA)
constexpr std::uint64_t kSeedA = 0x6862'6d31;
constexpr std::uint64_t kSeedB = 0x6862'6d32;
constexpr std::uint64_t kScalar = 3;

void measure_size(int ordinal, const GpuLabel& label, std::uint64_t size, const RunOptions& options,
                  MeasurementSink& sink) {
  const std::size_t count = size / sizeof(std::uint64_t);
  const std::size_t bytes = count * sizeof(std::uint64_t);
  Stream stream;
  GatedTimer timer;
  DeviceMemory a(bytes), b(bytes), c(bytes);
  FABCHECK_CUDA(kernels::launch_fill_pattern(b.get<std::uint64_t>(), count, kSeedA, stream.get()));
  FABCHECK_CUDA(kernels::launch_fill_pattern(c.get<std::uint64_t>(), count, kSeedB, stream.get()));
  FABCHECK_CUDA(cudaStreamSynchronize(stream.get()));
  const Lane streams{{ordinal, stream.get()}};
  std::uint64_t wrong = 0;

  // SM copy: reads and writes `bytes` each.
  FABCHECK_CUDA(cudaMemsetAsync(a.get(), 0, bytes, stream.get()));
  const auto copy = gated_samples_s(timer, streams, options.warmup, options.iters, [&] {
    FABCHECK_CUDA(kernels::launch_sm_copy(a.get(), b.get(), bytes, stream.get()));
  });
  wrong += device_pattern_mismatches(a.get<std::uint64_t>(), count, kSeedA, stream.get());
  sink.emit(bandwidth_measurement(label, kProbe, "copy_bw", size, 2.0 * static_cast<double>(bytes),
                                  copy));

  // cudaMemcpy device-to-device, the reference the SM copy is compared with.
  FABCHECK_CUDA(cudaMemsetAsync(a.get(), 0, bytes, stream.get()));
  const auto memcpy_samples = gated_samples_s(timer, streams, options.warmup, options.iters, [&] {
    FABCHECK_CUDA(cudaMemcpyAsync(a.get(), b.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
  });
  wrong += device_pattern_mismatches(a.get<std::uint64_t>(), count, kSeedA, stream.get());
  sink.emit(bandwidth_measurement(label, kProbe, "memcpy_bw", size,
                                  2.0 * static_cast<double>(bytes), memcpy_samples));

  // Triad: reads b and c, writes a.
  FABCHECK_CUDA(cudaMemsetAsync(a.get(), 0, bytes, stream.get()));
  const auto triad = gated_samples_s(timer, streams, options.warmup, options.iters, [&] {
    FABCHECK_CUDA(kernels::launch_triad(a.get<std::uint64_t>(), b.get<std::uint64_t>(),
                                        c.get<std::uint64_t>(), kScalar, count, stream.get()));
  });
  wrong +=
      device_triad_mismatches(a.get<std::uint64_t>(), count, kSeedA, kSeedB, kScalar, stream.get());
  sink.emit(bandwidth_measurement(label, kProbe, "triad_bw", size, 3.0 * static_cast<double>(bytes),
                                  triad));

  Measurement checked =
      gpu_measurement(label, kProbe, "wrong_elements", static_cast<double>(wrong), "count");
  checked.size_bytes = size;
  sink.emit(std::move(checked));
}

void run_hbm_bw(RunContext& context, MeasurementSink& sink) {
  const auto sizes = copy_sizes(context.options, {std::uint64_t{1} << 30});
  for (int ordinal : devices_of_this_rank(context.world)) {
    ScopedDevice device(ordinal);
    const GpuLabel label = cuda_device_label(ordinal);
    for (std::uint64_t size : sizes) {
      context.world.mark_progress();
      measure_size(ordinal, label, size, context.options, sink);
    }
  }
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_hbm_bw_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "device memory bandwidth (bytes read + written): SM copy, STREAM triad, cudaMemcpy D2D",
       .metrics = {higher_better("copy_bw", "GB/s"), higher_better("triad_bw", "GB/s"),
                   higher_better("memcpy_bw", "GB/s"), wrong_elements()},
       .body = FABCHECK_GPU_BODY(run_hbm_bw),
       // The GPU judge names the slow GPU of a node (gpu_judgement.hpp).
       .peers = {.within_node_by_family_judge = {"copy_bw", "triad_bw"}}});
}

}  // namespace fabcheck
