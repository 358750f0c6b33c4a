// gpu.p2p: every ordered GPU pair, copy engine (cudaMemcpyPeerAsync) and SM copy kernel, write
// (the source GPU stores into its peer) and read (it loads from its peer), one direction and
// both (each direction issued by the GPU whose data it moves, as nvbandwidth does); every copy
// verified. Run by each host's first rank over the GPUs it sees.
#include "kernels/gpu_probe.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include <memory>

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

constexpr const char* kProbe = "gpu.p2p";

#if defined(FABCHECK_HAVE_CUDA)
constexpr std::uint64_t kDefaultSize = std::uint64_t{256} << 20;

std::uint64_t seed_of(int ordinal) { return 0x7032'7000ULL + static_cast<std::uint64_t>(ordinal); }

void enable_peer_access(int from, int to) {
  ScopedDevice device(from);
  const cudaError_t enabled = cudaDeviceEnablePeerAccess(to, 0);
  if (enabled == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return;
  }
  FABCHECK_CUDA(enabled);
}

// Buffers of one pair: each GPU's source (its own pattern) and a receive buffer.
struct PairBuffers {
  DeviceMemory src_data, src_recv;  // on the source GPU
  DeviceMemory dst_data, dst_recv;  // on the peer
};

std::uint64_t verify(int ordinal, const DeviceMemory& buffer, std::size_t count,
                     std::uint64_t seed) {
  ScopedDevice device(ordinal);
  return device_pattern_mismatches(buffer.get<std::uint64_t>(), count, seed, nullptr);
}

// Zeroes `buffer` on `stream` (of the buffer's GPU) and waits: ordered before the timed work, which
// runs on non-blocking streams that a legacy-stream cudaMemset would not be ordered with.
void clear(const DeviceStream& on, DeviceMemory& buffer) {
  ScopedDevice device(on.device);
  FABCHECK_CUDA(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), on.stream));
  FABCHECK_CUDA(cudaStreamSynchronize(on.stream));
}

// One ordered pair. Each direction is issued by the GPU whose data it moves, on a stream of that
// GPU (nvbandwidth's bidirectional tests): "src -> peer" by src, "peer -> src" by the peer.
void measure_pair(int src, int dst, const GpuLabel& src_label, const GpuLabel& dst_label,
                  std::uint64_t size, const RunOptions& options, MeasurementSink& sink) {
  const std::size_t count = size / sizeof(std::uint64_t);
  const std::size_t bytes = count * sizeof(std::uint64_t);
  PairBuffers b;
  std::unique_ptr<Stream> backward;  // on the peer
  {
    ScopedDevice device(dst);
    b.dst_data = DeviceMemory(bytes);
    b.dst_recv = DeviceMemory(bytes);
    backward = std::make_unique<Stream>();
    FABCHECK_CUDA(kernels::launch_fill_pattern(b.dst_data.get<std::uint64_t>(), count, seed_of(dst),
                                               backward->get()));
    FABCHECK_CUDA(cudaStreamSynchronize(backward->get()));
  }
  ScopedDevice device(src);
  b.src_data = DeviceMemory(bytes);
  b.src_recv = DeviceMemory(bytes);
  Stream forward;  // on the source GPU
  FABCHECK_CUDA(kernels::launch_fill_pattern(b.src_data.get<std::uint64_t>(), count, seed_of(src),
                                             forward.get()));
  FABCHECK_CUDA(cudaStreamSynchronize(forward.get()));
  GatedTimer timer;
  const DeviceStream on_src{src, forward.get()};
  const DeviceStream on_dst{dst, backward->get()};
  const Lane one{on_src};
  const Lane two{on_src, on_dst};
  std::uint64_t wrong = 0;

  auto emit = [&](const char* metric, const std::vector<double>& samples, double moved,
                  const char* issued_by) {
    Measurement m = bandwidth_measurement(src_label, kProbe, metric, size, moved, samples);
    m.peer = dst_label.subject();
    m.params["peer_bus_id"] = dst_label.bus_id;
    m.params["issued_by"] = issued_by;
    sink.emit(std::move(m));
  };
  auto sample = [&](const Lane& lane, const std::function<void()>& work) {
    return gated_samples_s(timer, lane, options.warmup, options.iters, work);
  };
  const double once = static_cast<double>(bytes);
  auto ce_forward = [&] {  // src's copy engine pushes src's data to the peer
    ScopedDevice current(src);
    FABCHECK_CUDA(
        cudaMemcpyPeerAsync(b.dst_recv.get(), dst, b.src_data.get(), src, bytes, on_src.stream));
  };
  auto ce_backward = [&] {  // the peer's copy engine pushes the peer's data to src
    ScopedDevice current(dst);
    FABCHECK_CUDA(
        cudaMemcpyPeerAsync(b.src_recv.get(), src, b.dst_data.get(), dst, bytes, on_dst.stream));
  };
  auto sm_write = [&] {  // src's SMs store into the peer
    ScopedDevice current(src);
    FABCHECK_CUDA(
        kernels::launch_sm_copy(b.dst_recv.get(), b.src_data.get(), bytes, on_src.stream));
  };
  auto sm_read = [&] {  // src's SMs load from the peer
    ScopedDevice current(src);
    FABCHECK_CUDA(
        kernels::launch_sm_copy(b.src_recv.get(), b.dst_data.get(), bytes, on_src.stream));
  };
  auto sm_write_back = [&] {  // the peer's SMs store into src
    ScopedDevice current(dst);
    FABCHECK_CUDA(
        kernels::launch_sm_copy(b.src_recv.get(), b.dst_data.get(), bytes, on_dst.stream));
  };
  auto check_forward = [&] { return verify(dst, b.dst_recv, count, seed_of(src)); };
  auto check_backward = [&] { return verify(src, b.src_recv, count, seed_of(dst)); };
  auto reset = [&] {
    clear(on_dst, b.dst_recv);
    clear(on_src, b.src_recv);
  };

  reset();
  emit("ce_bw", sample(one, ce_forward), once, "source");
  wrong += check_forward();
  reset();
  emit("ce_bidir_bw",
       sample(two,
              [&] {
                ce_forward();
                ce_backward();
              }),
       2 * once, "each direction by its source");
  wrong += check_forward() + check_backward();
  reset();
  emit("sm_write_bw", sample(one, sm_write), once, "source");
  wrong += check_forward();
  reset();
  emit("sm_read_bw", sample(one, sm_read), once, "source");
  wrong += check_backward();
  reset();
  emit("sm_bidir_bw",
       sample(two,
              [&] {
                sm_write();
                sm_write_back();
              }),
       2 * once, "each direction by its source");
  wrong += check_forward() + check_backward();

  Measurement checked =
      gpu_measurement(src_label, kProbe, "wrong_elements", static_cast<double>(wrong), "count");
  checked.peer = dst_label.subject();
  checked.size_bytes = size;
  sink.emit(std::move(checked));
}

void run_p2p(RunContext& context, MeasurementSink& sink) {
  if (context.world.local_rank() != 0) return;  // the pairs of a host are measured once
  int device_count = 0;
  FABCHECK_CUDA(cudaGetDeviceCount(&device_count));
  const auto sizes = copy_sizes(context.options, {kDefaultSize});
  std::vector<GpuLabel> labels;
  for (int ordinal = 0; ordinal < device_count; ++ordinal) {
    labels.push_back(cuda_device_label(ordinal));
  }
  for (int src = 0; src < device_count; ++src) {
    for (int dst = 0; dst < device_count; ++dst) {
      if (src == dst) continue;
      int can_access = 0;
      FABCHECK_CUDA(cudaDeviceCanAccessPeer(&can_access, src, dst));
      if (can_access == 0) {
        Measurement waived = gpu_measurement(labels[src], kProbe, "ce_bw", 0, "GB/s");
        waived.peer = labels[dst].subject();
        waived.status = MeasurementStatus::waived;
        waived.message = "no peer access from " + labels[src].subject() + " to " +
                         labels[dst].subject() + " (cudaDeviceCanAccessPeer)";
        sink.emit(std::move(waived));
        continue;
      }
      enable_peer_access(src, dst);
      enable_peer_access(dst, src);
      for (std::uint64_t size : sizes) {
        context.world.mark_progress();
        measure_pair(src, dst, labels[src], labels[dst], size, context.options, sink);
      }
    }
  }
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_p2p_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "every GPU pair: copy engine and SM copy kernel, read and write, one direction and both "
           "(each direction issued by the GPU whose data it moves)",
       .metrics = {higher_better("ce_bw", "GB/s"), higher_better("ce_bidir_bw", "GB/s"),
                   higher_better("sm_write_bw", "GB/s"), higher_better("sm_read_bw", "GB/s"),
                   higher_better("sm_bidir_bw", "GB/s"), wrong_elements()},
       .needs_gpu_pair = true,
       .scope = ProbeScope::host,
       .body = FABCHECK_GPU_BODY(run_p2p)});
}

}  // namespace fabcheck
