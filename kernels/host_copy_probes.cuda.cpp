// gpu.h2d, gpu.d2h, gpu.bidir: copies between pinned host memory on the GPU's NUMA node and the
// GPU (copy engines, gated event timing), with plain cudaMemcpy timed beside them; all verified.
#include <cstring>

#include "bench/core/probe.hpp"
#include "bench/core/timer.hpp"
#include "kernels/bandwidth_sample.hpp"
#include "kernels/cpu_affinity.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_resources.hpp"
#include "kernels/device_verification.hpp"
#include "kernels/gated_timer.hpp"
#include "kernels/gpu_options.hpp"
#include "kernels/gpu_probe_runs.hpp"
#include "kernels/kernels.cuh"
#include "kernels/random_pattern.hpp"

namespace fabcheck {
namespace {

constexpr std::uint64_t kDefaultSize = std::uint64_t{256} << 20;
constexpr std::uint64_t kSeedHost = 0x6832'6431;
constexpr std::uint64_t kSeedDevice = 0x6432'6831;

enum class Direction { h2d, d2h, both };

const char* probe_id(Direction direction) {
  switch (direction) {
    case Direction::h2d:
      return "gpu.h2d";
    case Direction::d2h:
      return "gpu.d2h";
    case Direction::both:
      return "gpu.bidir";
  }
  return "gpu.?";
}

void fill_host(std::uint64_t* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = 0; i < count; ++i) data[i] = pattern_value(seed, i);
}

// Plain synchronous cudaMemcpy, timed on the host: what an application sees.
std::vector<double> plain_samples_s(const RunOptions& options, void* dst, const void* src,
                                    std::size_t bytes, cudaMemcpyKind kind) {
  for (int i = 0; i < options.warmup; ++i) FABCHECK_CUDA(cudaMemcpy(dst, src, bytes, kind));
  std::vector<double> samples;
  for (int i = 0; i < (options.iters > 0 ? options.iters : 1); ++i) {
    Stopwatch watch;
    FABCHECK_CUDA(cudaMemcpy(dst, src, bytes, kind));
    samples.push_back(watch.elapsed_s());
  }
  return samples;
}

void measure_size(const GpuLabel& label, Direction direction, std::uint64_t size,
                  const RunOptions& options, const std::string& affinity, MeasurementSink& sink) {
  const char* probe = probe_id(direction);
  const std::size_t count = size / sizeof(std::uint64_t);
  const std::size_t bytes = count * sizeof(std::uint64_t);
  Stream up, down;
  GatedTimer timer;
  PinnedMemory host_src(bytes), host_dst(bytes);
  DeviceMemory device_src(bytes), device_dst(bytes);
  fill_host(host_src.get<std::uint64_t>(), count, kSeedHost);
  std::memset(host_dst.get(), 0, bytes);
  FABCHECK_CUDA(kernels::launch_fill_pattern(device_src.get<std::uint64_t>(), count, kSeedDevice,
                                             down.get()));
  FABCHECK_CUDA(cudaMemsetAsync(device_dst.get(), 0, bytes, up.get()));
  FABCHECK_CUDA(cudaDeviceSynchronize());

  const bool uploads = direction != Direction::d2h;
  const bool downloads = direction != Direction::h2d;
  std::vector<cudaStream_t> streams;
  if (uploads) streams.push_back(up.get());
  if (downloads) streams.push_back(down.get());
  const auto samples = gated_samples_s(timer, streams, options.warmup, options.iters, [&] {
    if (uploads) {
      FABCHECK_CUDA(cudaMemcpyAsync(device_dst.get(), host_src.get(), bytes, cudaMemcpyHostToDevice,
                                    up.get()));
    }
    if (downloads) {
      FABCHECK_CUDA(cudaMemcpyAsync(host_dst.get(), device_src.get(), bytes, cudaMemcpyDeviceToHost,
                                    down.get()));
    }
  });
  const double moved = static_cast<double>(bytes) * (uploads && downloads ? 2.0 : 1.0);
  auto emit = [&](Measurement m) {
    m.params["affinity"] = affinity;
    m.params["memory"] = "pinned";
    sink.emit(std::move(m));
  };
  emit(bandwidth_measurement(label, probe, "bw", size, moved, samples));

  std::uint64_t wrong = 0;
  if (uploads) {
    wrong += device_pattern_mismatches(device_dst.get<std::uint64_t>(), count, kSeedHost, up.get());
  }
  if (downloads)
    wrong += count_pattern_mismatches(host_dst.get<std::uint64_t>(), count, kSeedDevice);

  if (direction != Direction::both) {
    std::vector<double> plain;
    if (uploads) {
      FABCHECK_CUDA(cudaMemset(device_dst.get(), 0, bytes));
      plain =
          plain_samples_s(options, device_dst.get(), host_src.get(), bytes, cudaMemcpyHostToDevice);
      wrong +=
          device_pattern_mismatches(device_dst.get<std::uint64_t>(), count, kSeedHost, up.get());
    } else {
      std::memset(host_dst.get(), 0, bytes);
      plain =
          plain_samples_s(options, host_dst.get(), device_src.get(), bytes, cudaMemcpyDeviceToHost);
      wrong += count_pattern_mismatches(host_dst.get<std::uint64_t>(), count, kSeedDevice);
    }
    emit(bandwidth_measurement(label, probe, "plain_memcpy_bw", size, moved, plain));
  }
  Measurement checked =
      gpu_measurement(label, probe, "wrong_elements", static_cast<double>(wrong), "count");
  checked.size_bytes = size;
  emit(std::move(checked));
}

void run_host_copies(RunContext& context, MeasurementSink& sink, Direction direction) {
  const auto sizes = copy_sizes(context.options, {kDefaultSize});
  for (int ordinal : devices_of_this_rank(context.world)) {
    ScopedDevice device(ordinal);
    const GpuLabel label = cuda_device_label(ordinal);
    // Pinned buffers are allocated (first touched) while pinned, so they sit on the GPU's node.
    ScopedCpuAffinity near_gpu(label.bus_id, context.options.sysfs_root);
    for (std::uint64_t size : sizes) {
      context.world.mark_progress();
      measure_size(label, direction, size, context.options, near_gpu.note(), sink);
    }
  }
}

}  // namespace

void run_gpu_h2d(RunContext& context, MeasurementSink& sink) {
  run_host_copies(context, sink, Direction::h2d);
}

void run_gpu_d2h(RunContext& context, MeasurementSink& sink) {
  run_host_copies(context, sink, Direction::d2h);
}

void run_gpu_bidir(RunContext& context, MeasurementSink& sink) {
  run_host_copies(context, sink, Direction::both);
}

}  // namespace fabcheck
