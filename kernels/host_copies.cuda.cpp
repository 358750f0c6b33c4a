// The copies gpu.h2d, gpu.d2h and gpu.bidir share (host_copies.hpp): between pinned host memory on
// the GPU's NUMA node and the GPU (copy engines, gated event timing), all verified. `bw` is one GPU
// at a time on its host (the ranks of a host take turns), so GPUs sharing a PCIe switch or a CPU
// socket do not halve each other's figure; plain cudaMemcpy is timed beside it. Then every GPU of
// the host copies at once: `all_gpus_bw` per GPU and `host_bw`, the host's aggregate, each saying
// how many GPUs ran.
#include "kernels/host_copies.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "bench/core/rank_agreement.hpp"
#include "bench/core/stats.hpp"
#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "bench/sys/cpu_affinity.hpp"
#include "bench/sys/timer.hpp"
#include "kernels/bandwidth_sample.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/device_verification.hpp"
#include "kernels/gated_timer.hpp"
#include "kernels/gpu_options.hpp"
#include "kernels/kernels.cuh"
#include "kernels/random_pattern.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr std::uint64_t kDefaultSize = std::uint64_t{256} << 20;
constexpr std::uint64_t kSeedHost = 0x6832'6431;
constexpr std::uint64_t kSeedDevice = 0x6432'6831;

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

// One GPU's buffers and streams for one size: pinned host memory allocated while this thread runs
// near the GPU (first touch puts it on the GPU's NUMA node), device buffers, an upload and a
// download stream.
struct CopySet {
  CopySet(int ordinal_, const GpuLabel& label_, CopyDirection direction_, std::uint64_t size,
          const std::filesystem::path& sysfs_root)
      : ordinal(ordinal_), label(label_), direction(direction_) {
    count = size / sizeof(std::uint64_t);
    bytes = count * sizeof(std::uint64_t);
    ScopedDevice device(ordinal);
    ScopedCpuAffinity near_gpu(label.bus_id, sysfs_root);
    affinity = near_gpu.note();
    up = std::make_unique<Stream>();
    down = std::make_unique<Stream>();
    host_src = PinnedMemory(bytes);
    host_dst = PinnedMemory(bytes);
    device_src = DeviceMemory(bytes);
    device_dst = DeviceMemory(bytes);
    fill_host(host_src.get<std::uint64_t>(), count, kSeedHost);
    std::memset(host_dst.get(), 0, bytes);
    FABCHECK_CUDA(kernels::launch_fill_pattern(device_src.get<std::uint64_t>(), count, kSeedDevice,
                                               down->get()));
    FABCHECK_CUDA(cudaMemsetAsync(device_dst.get(), 0, bytes, up->get()));
    FABCHECK_CUDA(cudaStreamSynchronize(down->get()));
    FABCHECK_CUDA(cudaStreamSynchronize(up->get()));
  }

  bool uploads() const { return direction != CopyDirection::d2h; }
  bool downloads() const { return direction != CopyDirection::h2d; }
  double moved() const { return static_cast<double>(bytes) * (uploads() && downloads() ? 2 : 1); }

  Lane lane() const {
    Lane streams;
    if (uploads()) streams.push_back({ordinal, up->get()});
    if (downloads()) streams.push_back({ordinal, down->get()});
    return streams;
  }

  void enqueue() const {
    ScopedDevice device(ordinal);
    if (uploads()) {
      FABCHECK_CUDA(cudaMemcpyAsync(device_dst.get(), host_src.get(), bytes, cudaMemcpyHostToDevice,
                                    up->get()));
    }
    if (downloads()) {
      FABCHECK_CUDA(cudaMemcpyAsync(host_dst.get(), device_src.get(), bytes, cudaMemcpyDeviceToHost,
                                    down->get()));
    }
  }

  std::uint64_t wrong() const {
    ScopedDevice device(ordinal);
    std::uint64_t wrong = 0;
    if (uploads()) {
      wrong +=
          device_pattern_mismatches(device_dst.get<std::uint64_t>(), count, kSeedHost, up->get());
    }
    if (downloads()) {
      wrong += count_pattern_mismatches(host_dst.get<std::uint64_t>(), count, kSeedDevice);
    }
    return wrong;
  }

  int ordinal;
  GpuLabel label;
  CopyDirection direction;
  std::size_t count = 0;
  std::size_t bytes = 0;
  std::string affinity;
  std::unique_ptr<Stream> up, down;
  PinnedMemory host_src, host_dst;
  DeviceMemory device_src, device_dst;
};

Measurement with_context(Measurement m, const CopySet& set, int concurrent_gpus) {
  m.params["affinity"] = set.affinity;
  m.params["memory"] = "pinned";
  m.params["concurrent_gpus"] = std::to_string(concurrent_gpus);
  return m;
}

// `bw` (and `plain_memcpy_bw` one way) of one GPU while no other GPU of its host copies.
void measure_alone(const char* probe, const CopySet& set, std::uint64_t size,
                   const RunOptions& options, MeasurementSink& sink) {
  ScopedDevice device(set.ordinal);
  GatedTimer timer;
  const auto samples =
      gated_samples_s(timer, set.lane(), options.warmup, options.iters, [&] { set.enqueue(); });
  sink.emit(with_context(bandwidth_measurement(set.label, probe, "bw", size, set.moved(), samples),
                         set, 1));
  std::uint64_t wrong = set.wrong();

  if (set.direction != CopyDirection::both) {
    std::vector<double> plain;
    if (set.uploads()) {
      FABCHECK_CUDA(cudaMemsetAsync(set.device_dst.get(), 0, set.bytes, set.up->get()));
      FABCHECK_CUDA(cudaStreamSynchronize(set.up->get()));
      plain = plain_samples_s(options, set.device_dst.get(), set.host_src.get(), set.bytes,
                              cudaMemcpyHostToDevice);
    } else {
      std::memset(set.host_dst.get(), 0, set.bytes);
      plain = plain_samples_s(options, set.host_dst.get(), set.device_src.get(), set.bytes,
                              cudaMemcpyDeviceToHost);
    }
    wrong += set.wrong();
    sink.emit(with_context(
        bandwidth_measurement(set.label, probe, "plain_memcpy_bw", size, set.moved(), plain), set,
        1));
  }
  Measurement checked =
      gpu_measurement(set.label, probe, "wrong_elements", static_cast<double>(wrong), "count");
  checked.size_bytes = size;
  sink.emit(with_context(std::move(checked), set, 1));
}

// How many ranks the busiest host runs: the number of turns.
int most_ranks_on_a_host(const World& world) {
  int most = 1;
  for (const auto& host : world.distinct_hosts()) {
    most = std::max(most,
                    static_cast<int>(std::count(world.hosts().begin(), world.hosts().end(), host)));
  }
  return most;
}

std::size_t host_index(const World& world) {
  const auto hosts = world.distinct_hosts();
  return static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), world.host()) -
                                  hosts.begin());
}

// Every GPU of every host at once, ranks aligned per sample: `all_gpus_bw` per GPU and, on the
// root, `host_bw` per host (the sum over its GPUs).
void measure_all_at_once(RunContext& context, MeasurementSink& sink, const char* probe,
                         CopyDirection direction, const std::vector<int>& ordinals,
                         const std::vector<GpuLabel>& labels,
                         const std::vector<double>& gpus_per_host, std::uint64_t size) {
  World& world = context.world;
  const RunOptions& options = context.options;
  const int on_my_host = static_cast<int>(gpus_per_host[host_index(world)]);
  const std::string step = std::string(probe) + " " + format_bytes(size) + " on every GPU at once";

  std::vector<std::unique_ptr<CopySet>> sets;
  std::optional<GatedTimer> timer;
  std::vector<Lane> lanes;
  run_on_every_rank(world, "preparing " + step, [&] {
    for (std::size_t i = 0; i < ordinals.size(); ++i) {
      sets.push_back(
          std::make_unique<CopySet>(ordinals[i], labels[i], direction, size, options.sysfs_root));
      lanes.push_back(sets.back()->lane());
    }
    if (!ordinals.empty()) {
      ScopedDevice device(ordinals.front());
      timer.emplace();
    }
  });
  std::vector<std::vector<double>> samples(sets.size());
  const int iters = options.iters > 0 ? options.iters : 1;
  // long long: --warmup and --iters may each be as large as an int holds (their sum is not).
  for (long long i = 0; i < static_cast<long long>(options.warmup) + iters; ++i) {
    world.mark_progress();
    run_on_every_rank(world, "queueing " + step, [&] {
      if (timer)
        timer->queue(lanes, [&] {
          for (const auto& set : sets) set->enqueue();
        });
    });
    world.barrier();  // every rank's copies are queued: the gates of a host open together
    std::vector<float> ms;
    run_on_every_rank(world, step, [&] {
      if (timer) ms = timer->complete();
    });
    if (i < options.warmup) continue;
    for (std::size_t s = 0; s < sets.size() && s < ms.size(); ++s) {
      samples[s].push_back(static_cast<double>(ms[s]) * 1e-3);
    }
  }
  std::vector<std::uint64_t> wrong(sets.size(), 0);
  run_on_every_rank(world, "verifying " + step, [&] {
    for (std::size_t s = 0; s < sets.size(); ++s) wrong[s] = sets[s]->wrong();
  });

  std::vector<double> host_sum(gpus_per_host.size(), 0.0);
  for (std::size_t s = 0; s < sets.size(); ++s) {
    Measurement m = bandwidth_measurement(sets[s]->label, probe, "all_gpus_bw", size,
                                          sets[s]->moved(), samples[s]);
    host_sum[host_index(world)] += m.value;
    sink.emit(with_context(std::move(m), *sets[s], on_my_host));
    Measurement checked = gpu_measurement(sets[s]->label, probe, "wrong_elements",
                                          static_cast<double>(wrong[s]), "count");
    checked.size_bytes = size;
    sink.emit(with_context(std::move(checked), *sets[s], on_my_host));
  }
  world.sum_in_place(host_sum);
  if (!world.is_root()) return;
  const auto hosts = world.distinct_hosts();
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    Measurement total;
    total.probe = probe;
    total.metric = "host_bw";
    total.value = host_sum[h];
    total.unit = "GB/s";
    total.host = hosts[h];
    total.rank = -1;
    total.subject = "host";
    total.size_bytes = size;
    total.params["concurrent_gpus"] = std::to_string(static_cast<int>(gpus_per_host[h]));
    total.params["memory"] = "pinned";
    total.params["combined"] = "sum of all_gpus_bw of the host's GPUs";
    sink.emit(std::move(total));
  }
}

}  // namespace

void run_host_copies(RunContext& context, MeasurementSink& sink, const char* probe,
                     CopyDirection direction) {
  World& world = context.world;
  const auto sizes = copy_sizes(context.options, {kDefaultSize});
  std::vector<int> ordinals;
  std::vector<GpuLabel> labels;
  run_on_every_rank(world, std::string(probe) + ": choosing the GPUs", [&] {
    ordinals = devices_of_this_rank(world);
    for (int ordinal : ordinals) labels.push_back(cuda_device_label(ordinal));
  });

  // One GPU at a time per host: the ranks of a host take turns; hosts run in parallel.
  const int turns = most_ranks_on_a_host(world);
  for (int turn = 0; turn < turns; ++turn) {
    world.mark_progress();
    run_on_every_rank(
        world,
        std::string(probe) + ": one GPU at a time (local rank " + std::to_string(turn) + "'s turn)",
        [&] {
          if (world.local_rank() != turn) return;
          for (std::size_t i = 0; i < ordinals.size(); ++i) {
            for (std::uint64_t size : sizes) {
              world.mark_progress();
              const CopySet set(ordinals[i], labels[i], direction, size,
                                context.options.sysfs_root);
              measure_alone(probe, set, size, context.options, sink);
            }
          }
        });
  }

  // Then every GPU at once, where a host has more than one.
  std::vector<double> gpus_per_host(world.distinct_hosts().size(), 0.0);
  gpus_per_host[host_index(world)] = static_cast<double>(ordinals.size());
  world.sum_in_place(gpus_per_host);
  if (*std::max_element(gpus_per_host.begin(), gpus_per_host.end()) < 2) return;
  for (std::uint64_t size : sizes) {
    measure_all_at_once(context, sink, probe, direction, ordinals, labels, gpus_per_host, size);
  }
}

}  // namespace fabcheck
