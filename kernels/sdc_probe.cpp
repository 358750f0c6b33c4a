// gpu.sdc: the per-SM silent-data-corruption screen: every SM of each GPU computes the same seeded
// integer, FP64/FP32 FMA and CRC32C chains for --opt sdc.duration_s a pass, and reads back through
// L2 a word stream a block on another SM wrote (bench/sdc/l2_pattern.hpp); each SM's results are
// compared bit for bit with the host's exact reference (kernels/sdc_comparison.hpp). In the
// acceptance plan it runs after gpu.gemm's burn, its second pass on a hot GPU.
#include <cstdio>

#include "bench/sdc/sdc_options.hpp"
#include "kernels/gpu_probe.hpp"
#include "kernels/sdc_comparison.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include <chrono>

#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/kernels.cuh"
#endif

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
// Threads a block: each computes one lane; every block computes the same lanes.
constexpr unsigned kLanes = 128;
constexpr int kBlocksPerSm = 4;

void screen_gpu(int ordinal, RunContext& context, MeasurementSink& sink) {
  ScopedDevice device(ordinal);
  const GpuLabel label = cuda_device_label(ordinal);
  cudaDeviceProp properties{};
  FABCHECK_CUDA(cudaGetDeviceProperties(&properties, ordinal));
  const unsigned sms = static_cast<unsigned>(properties.multiProcessorCount);
  const unsigned blocks = sms * kBlocksPerSm;
  const std::uint64_t seed =
      static_cast<std::uint64_t>(option_integer(context.options, sdc::kSeed));
  const int passes = static_cast<int>(option_integer(context.options, sdc::kRepeats));
  const double pass_seconds = option_number(context.options, sdc::kDurationSeconds);
  sdc::ChainShape shape{};
  // The L2 pattern's buffer: half the L2 (at most 32 MiB), so what one SM wrote is read from L2.
  shape.l2_words =
      sdc::l2_words_per_lane(static_cast<std::uint64_t>(properties.l2CacheSize), blocks, kLanes);
  const std::size_t lanes_total = static_cast<std::size_t>(blocks) * kLanes;
  Stream stream;
  DeviceMemory digests_on_gpu(sizeof(sdc::BlockDigest) * lanes_total);
  DeviceMemory sms_on_gpu(sizeof(unsigned) * blocks);
  DeviceMemory l2_buffer(sizeof(std::uint64_t) * lanes_total * shape.l2_words);
  DeviceMemory writers_on_gpu(sizeof(unsigned) * blocks);
  DeviceMemory partners_on_gpu(sizeof(unsigned) * blocks);
  DeviceMemory reads_on_gpu(sizeof(sdc::L2Read) * lanes_total);
  const sdc::L2Traffic traffic{l2_buffer.get<std::uint64_t>(), writers_on_gpu.get<unsigned>(),
                               partners_on_gpu.get<unsigned>(), reads_on_gpu.get<sdc::L2Read>()};
  std::vector<sdc::BlockDigest> digests(lanes_total);
  std::vector<unsigned> sm_of_block(blocks);
  L2Round l2{shape.l2_words, std::vector<unsigned>(blocks), std::vector<unsigned>(blocks),
             std::vector<sdc::L2Read>(lanes_total)};
  std::vector<std::vector<sdc::BlockDigest>> references;  // by round, the same every pass
  SmTally tally;
  std::uint64_t rounds = 0;
  // The first pass runs rounds for its seconds; the later ones run as many again, the same blocks.
  for (int pass = 0; pass < passes; ++pass) {
    const auto begin = std::chrono::steady_clock::now();
    const auto more = [&](std::uint64_t round) {
      if (pass > 0) return round < rounds;
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      return round == 0 || elapsed < pass_seconds;
    };
    for (std::uint64_t round = 0; more(round); ++round) {
      if (pass == 0) rounds = round + 1;
      const std::uint64_t first_block = round * kLanes;
      // Two launches on one stream: every slice is written before any block reads one.
      FABCHECK_CUDA(kernels::launch_sdc_l2_write(seed, first_block, shape, blocks, kLanes, traffic,
                                                 stream.get()));
      FABCHECK_CUDA(kernels::launch_sdc_chains(seed, first_block, shape, blocks, kLanes,
                                               digests_on_gpu.get<sdc::BlockDigest>(),
                                               sms_on_gpu.get<unsigned>(), traffic, stream.get()));
      // The host's reference while the GPU computes.
      if (references.size() <= round)
        references.push_back(sdc_reference(seed, first_block, kLanes, shape));
      FABCHECK_CUDA(cudaStreamSynchronize(stream.get()));
      FABCHECK_CUDA(cudaMemcpy(digests.data(), digests_on_gpu.get(), digests_on_gpu.bytes(),
                               cudaMemcpyDeviceToHost));
      FABCHECK_CUDA(cudaMemcpy(sm_of_block.data(), sms_on_gpu.get(), sms_on_gpu.bytes(),
                               cudaMemcpyDeviceToHost));
      FABCHECK_CUDA(cudaMemcpy(l2.writer_sm.data(), writers_on_gpu.get(), writers_on_gpu.bytes(),
                               cudaMemcpyDeviceToHost));
      FABCHECK_CUDA(cudaMemcpy(l2.partner_of_block.data(), partners_on_gpu.get(),
                               partners_on_gpu.bytes(), cudaMemcpyDeviceToHost));
      FABCHECK_CUDA(cudaMemcpy(l2.reads.data(), reads_on_gpu.get(), reads_on_gpu.bytes(),
                               cudaMemcpyDeviceToHost));
      compare_sm_digests(digests, sm_of_block, l2, references[round], first_block, pass, tally);
      context.world.mark_progress();
    }
  }
  std::vector<unsigned> wrong, missed;
  std::uint64_t wrong_lanes = 0, checked = 0;
  for (const auto& [sm, count] : tally.wrong_by_sm) {
    if (count == 0) continue;
    wrong.push_back(sm);
    wrong_lanes += count;
  }
  for (const auto& [sm, lanes] : tally.lanes_by_sm) checked += lanes;
  for (unsigned sm = 0; sm < sms; ++sm) {
    if (!tally.lanes_by_sm.count(sm)) missed.push_back(sm);
  }
  Measurement m = gpu_measurement(label, kGpuSdcProbe, kSmMismatchMetric,
                                  static_cast<double>(wrong_lanes), "count");
  m.params["sms"] = std::to_string(sms);
  m.params["sms_screened"] = std::to_string(tally.lanes_by_sm.size());
  m.params["sms_wrong"] = sm_list(wrong);
  m.params["sms_not_reached"] = sm_list(missed);
  m.params["lanes_checked"] = std::to_string(checked);
  m.params["rounds"] = std::to_string(rounds);
  m.params["seed"] = std::to_string(seed);
  m.params["steps"] = std::to_string(shape.steps);
  m.params["l2_bytes"] = std::to_string(l2_buffer.bytes());
  m.params["passes"] = std::to_string(passes);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", pass_seconds);
  m.params["pass_seconds"] = seconds;
  if (!wrong.empty()) m.params["mismatch"] = describe_sm_mismatch(tally.first_by_sm[wrong.front()]);
  sink.emit(std::move(m));
}

void run_sdc(RunContext& context, MeasurementSink& sink) {
  for (int ordinal : devices_of_this_rank(context.world)) screen_gpu(ordinal, context, sink);
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_sdc_probe() {
  return make_gpu_probe(
      {.id = kGpuSdcProbe,
       .description = "silent data corruption screen of every SM: the same seeded integer, "
                      "FP64/FP32 FMA and CRC32C chains on each SM (%smid), and a word stream "
                      "each SM reads back through L2 from another SM, compared bit for bit "
                      "with the host's exact reference; --opt sdc.duration_s, sdc.repeats",
       .metrics = {lower_better(kSmMismatchMetric, "count")},
       .options = {sdc::kDurationSeconds, sdc::kRepeats, sdc::kSeed},
       // The L2 pattern is part of each round, inside the passes' seconds.
       .estimate =
           [](const RunOptions& options, const JobShape&) {
             ProbeEstimate estimate = sdc::estimate_passes(options, "SM");
             estimate.knobs += " (chains and L2 pattern)";
             return estimate;
           },
       .body = FABCHECK_GPU_BODY(run_sdc),
       .plans = {{"acceptance"}, {"sweep"}},
       .peers = {.compared = false}});
}

}  // namespace fabcheck
