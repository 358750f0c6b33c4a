// gpu.hbm_patterns: device memory write/read-verify patterns (walking ones, each word's own
// address, seeded random; each also inverted) over --opt sdc.memory_fraction of each GPU's free
// memory; a word read back wrong is named with its address. NVML's error counters (ECC among them)
// are read around it like around every heavy probe.
#include <cstdio>

#include "bench/sdc/sdc_options.hpp"
#include "kernels/gpu_probe.hpp"
#include "kernels/sdc_comparison.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include <chrono>
#include <stdexcept>

#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/kernels.cuh"
#endif

namespace fabcheck {
namespace {

constexpr const char* kPatternsText =
    "walking ones, address in address, random; each written, read back, then inverted";

// Each pattern and its inverse written and read once a pass: 12 passes over the memory at an
// assumed 1 TB/s (HBM does several), 80 GiB GPU, plus start-up.
ProbeEstimate estimate_patterns(const RunOptions& options, const JobShape&) {
  const double fraction = option_number(options, sdc::kMemoryFraction);
  const auto passes = option_integer(options, sdc::kRepeats);
  const double bytes = fraction * 80e9;
  char knobs[80];
  std::snprintf(knobs, sizeof knobs, "%g of free memory, %lld pass(es)", fraction,
                static_cast<long long>(passes));
  return {1 + static_cast<double>(passes) * 2 * sdc::kHbmPatterns * 2 * bytes / 1e12, knobs};
}

#if defined(FABCHECK_HAVE_CUDA)
constexpr std::size_t kGranule = std::size_t{2} << 20;  // allocations in 2 MiB pages

void check_gpu(int ordinal, RunContext& context, MeasurementSink& sink) {
  ScopedDevice device(ordinal);
  const GpuLabel label = cuda_device_label(ordinal);
  std::size_t free_bytes = 0, total_bytes = 0;
  FABCHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double fraction = option_number(context.options, sdc::kMemoryFraction);
  const std::size_t bytes =
      static_cast<std::size_t>(fraction * static_cast<double>(free_bytes)) / kGranule * kGranule;
  if (bytes == 0) {
    throw std::runtime_error(label.subject() + ": " + std::to_string(free_bytes) +
                             " bytes free; sdc.memory_fraction " + std::to_string(fraction) +
                             " of it is less than 2 MiB to test");
  }
  const std::uint64_t seed =
      static_cast<std::uint64_t>(option_integer(context.options, sdc::kSeed));
  const int passes = static_cast<int>(option_integer(context.options, sdc::kRepeats));
  const std::size_t count = bytes / sizeof(std::uint64_t);
  DeviceMemory buffer(bytes);
  DeviceMemory check_on_gpu(sizeof(sdc::HbmCheck));
  Stream stream;
  const auto base = reinterpret_cast<std::uintptr_t>(buffer.get());
  std::uint64_t wrong = 0;
  std::string first;
  const auto begin = std::chrono::steady_clock::now();
  for (int pass = 0; pass < passes; ++pass) {
    for (int pattern = 0; pattern < sdc::kHbmPatterns; ++pattern) {
      for (bool inverted : {false, true}) {
        const std::uint64_t pass_seed = seed + static_cast<std::uint64_t>(pass);
        FABCHECK_CUDA(kernels::launch_fill_hbm_pattern(buffer.get<std::uint64_t>(), count, pattern,
                                                       pass_seed, inverted, stream.get()));
        sdc::HbmCheck check;
        FABCHECK_CUDA(cudaMemcpyAsync(check_on_gpu.get(), &check, sizeof check,
                                      cudaMemcpyHostToDevice, stream.get()));
        FABCHECK_CUDA(kernels::launch_check_hbm_pattern(
            buffer.get<std::uint64_t>(), count, pattern, pass_seed, inverted,
            check_on_gpu.get<sdc::HbmCheck>(), stream.get()));
        FABCHECK_CUDA(cudaMemcpyAsync(&check, check_on_gpu.get(), sizeof check,
                                      cudaMemcpyDeviceToHost, stream.get()));
        FABCHECK_CUDA(cudaStreamSynchronize(stream.get()));
        context.world.mark_progress();
        if (check.wrong == 0) continue;
        wrong += check.wrong;
        if (first.empty() && check.first_index < count) {
          std::uint64_t got = 0;
          FABCHECK_CUDA(cudaMemcpy(&got, buffer.get<std::uint64_t>() + check.first_index,
                                   sizeof got, cudaMemcpyDeviceToHost));
          const std::uint64_t expected =
              sdc::hbm_pattern_word(pattern, base, check.first_index, pass_seed, inverted);
          first = describe_pattern_mismatch(pattern, inverted, check, base, bytes, got, expected);
        }
      }
    }
  }
  Measurement m = gpu_measurement(label, kHbmPatternsProbe, kPatternMismatchMetric,
                                  static_cast<double>(wrong), "count");
  m.params["bytes"] = std::to_string(bytes);
  char share[32];
  std::snprintf(share, sizeof share, "%g", fraction);
  m.params["fraction"] = share;
  m.params["patterns"] = kPatternsText;
  m.params["passes"] = std::to_string(passes);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  m.params["seconds"] = seconds;
  if (!first.empty()) m.params["mismatch"] = first;
  sink.emit(std::move(m));
}

void run_patterns(RunContext& context, MeasurementSink& sink) {
  for (int ordinal : devices_of_this_rank(context.world)) check_gpu(ordinal, context, sink);
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_hbm_patterns_probe() {
  return make_gpu_probe(
      {.id = kHbmPatternsProbe,
       .description = "device memory patterns (walking ones, address in address, seeded random, "
                      "each inverted) written and read back over --opt sdc.memory_fraction of "
                      "free memory, the first wrong word named by address; ECC counters around it",
       .metrics = {lower_better(kPatternMismatchMetric, "count")},
       .options = {sdc::kMemoryFraction, sdc::kRepeats, sdc::kSeed},
       .estimate = estimate_patterns,
       .body = FABCHECK_GPU_BODY(run_patterns),
       .plans = {{"acceptance"}},
       .peers = {.compared = false}});
}

}  // namespace fabcheck
