// The CUDA gpu.* probes: ids, descriptions, metrics and requirements, in every build (waived where
// the build or node lacks CUDA); their bodies are in gpu_probe_runs.hpp. gpu.health is a file of
// its own (health_probe.cpp).
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/coll/nccl_backend.hpp"
#include "kernels/gpu_error_counters.hpp"
#include "kernels/gpu_judgement.hpp"
#include "kernels/gpu_options.hpp"
#include "kernels/gpu_probe_runs.hpp"
#include "kernels/gpu_requirements.hpp"
#include "kernels/register.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "kernels/throttle_analysis.hpp"

namespace fabcheck {
namespace {

enum class Needs { cuda, cuda_pair };

struct GpuProbeSpec {
  std::string id;
  std::string description;
  std::vector<MetricSpec> metrics;
  Needs needs;
  std::function<void(RunContext&, MeasurementSink&)> body;
  std::vector<OptionSpec> options{};
  ProbeScope scope = ProbeScope::rank;
  bool heavy = true;
  std::function<ProbeEstimate(const RunOptions&, const JobShape&)> estimate{};  // none: default
};

// The bf16 burn and the sustained tf32 GEMM, plus cuBLAS start-up (assumed 2 s).
ProbeEstimate estimate_gemm(const RunOptions& options, const JobShape&) {
  const double burn_s = gemm_burn_seconds(options);
  const double tf32_s = gemm_seconds(options);
  return {2 + burn_s + tf32_s, "bf16 " + std::to_string(static_cast<int>(burn_s)) + " s + tf32 " +
                                   std::to_string(static_cast<int>(tf32_s)) + " s"};
}

ProbeInfo info_of(const GpuProbeSpec& spec) {
  std::vector<Requirement> needs = {nccl_requirement()};
  if (spec.needs == Needs::cuda_pair) needs.push_back(gpu_pair_requirement());
  return {.id = spec.id,
          .description = spec.description,
          .metrics = spec.metrics,
          .needs = std::move(needs),
          .scope = spec.scope,
          .heavy = spec.heavy,
          .options = spec.options,
          .estimate = spec.estimate};
}

class GpuProbe final : public Probe {
 public:
  explicit GpuProbe(GpuProbeSpec spec) : Probe(info_of(spec)), body_(std::move(spec.body)) {}
  void run(RunContext& context, MeasurementSink& sink) override { body_(context, sink); }

 private:
  std::function<void(RunContext&, MeasurementSink&)> body_;
};

MetricSpec higher(const char* name, const char* unit) { return {name, {unit, Better::higher}}; }
MetricSpec lower(const char* name, const char* unit) { return {name, {unit, Better::lower}}; }

std::vector<MetricSpec> with(std::vector<MetricSpec> specs, const std::vector<MetricSpec>& more) {
  specs.insert(specs.end(), more.begin(), more.end());
  return specs;
}

}  // namespace

#define FABCHECK_PROBE(factory) std::unique_ptr<Probe> factory();
#include "kernels/probes.def"
#undef FABCHECK_PROBE

void register_kernel_probes(Registry& registry) {
#define FABCHECK_PROBE(factory) registry.add(factory());
#include "kernels/probes.def"
#undef FABCHECK_PROBE
  const MetricSpec wrong = lower("wrong_elements", "count");
  const std::vector<MetricSpec> all_at_once = {higher("all_gpus_bw", "GB/s"),
                                               higher("host_bw", "GB/s")};
  std::vector<GpuProbeSpec> specs = {
      {"gpu.hbm_bw",
       "device memory bandwidth (bytes read + written): SM copy, STREAM triad, cudaMemcpy D2D",
       {higher("copy_bw", "GB/s"), higher("triad_bw", "GB/s"), higher("memcpy_bw", "GB/s"), wrong},
       Needs::cuda,
       run_gpu_hbm_bw},
      {"gpu.h2d",
       "host-to-device copy from pinned memory on the GPU's NUMA node (copy engine), one GPU of "
       "the host at a time (bw; plain cudaMemcpy beside it), then every GPU at once (all_gpus_bw "
       "per GPU, host_bw the host's sum)",
       with({higher("bw", "GB/s"), higher("plain_memcpy_bw", "GB/s"), wrong}, all_at_once),
       Needs::cuda, run_gpu_h2d},
      {"gpu.d2h",
       "device-to-host copy into pinned memory on the GPU's NUMA node (copy engine), one GPU of "
       "the host at a time (bw; plain cudaMemcpy beside it), then every GPU at once (all_gpus_bw "
       "per GPU, host_bw the host's sum)",
       with({higher("bw", "GB/s"), higher("plain_memcpy_bw", "GB/s"), wrong}, all_at_once),
       Needs::cuda, run_gpu_d2h},
      {"gpu.bidir",
       "host-to-device and device-to-host at once (copy engines), sum of both directions, one GPU "
       "of the host at a time (bw), then every GPU at once (all_gpus_bw, host_bw)",
       with({higher("bw", "GB/s"), wrong}, all_at_once), Needs::cuda, run_gpu_bidir},
      {"gpu.p2p",
       "every GPU pair: copy engine and SM copy kernel, read and write, one direction and both "
       "(each direction issued by the GPU whose data it moves)",
       {higher("ce_bw", "GB/s"), higher("ce_bidir_bw", "GB/s"), higher("sm_write_bw", "GB/s"),
        higher("sm_read_bw", "GB/s"), higher("sm_bidir_bw", "GB/s"), wrong},
       Needs::cuda_pair,
       run_gpu_p2p,
       {},
       ProbeScope::host},
      {"gpu.launch_latency",
       "kernel launch cost: an empty kernel's launch (host side), and launch plus completion",
       {lower("launch_us", "us"), lower("launch_sync_us", "us")},
       Needs::cuda,
       run_gpu_launch_latency,
       {},
       ProbeScope::rank,
       false},
      {"gpu.gemm",
       "cuBLAS GEMM throughput, bf16 and tf32, sustained (--opt gemm_seconds=S) so clocks and "
       "temperature settle; bf16 burns --opt gpu.burn_s=S with clocks, power, temperature and "
       "clock-event reasons sampled every --opt gpu.sample_ms=100: throttled time per reason, "
       "clock at the end against the start",
       with(with({higher("bf16_tflops", "TFLOP/s"), higher("tf32_tflops", "TFLOP/s"), wrong},
                 telemetry_metric_specs()),
            throttle_metric_specs()),
       Needs::cuda, run_gpu_gemm, gemm_options(), ProbeScope::rank, true, estimate_gemm},
  };
  for (GpuProbeSpec& spec : specs) registry.add(std::make_unique<GpuProbe>(std::move(spec)));
  registry.add_counter_monitor(gpu_error_counter_monitor());
  registry.add_judge({"gpu throttling",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_throttling(measurements);
                      },
                      JudgeScope::each_probe});
  registry.add_judge({"gpu error counters",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_gpu_error_counters(measurements);
                      },
                      JudgeScope::each_probe});
  // Slow, hot, throttled GPUs are told from their peers, so the judge sees the whole run at once.
  registry.add_judge({"gpu", gpu_node_settings(),
                      [](const Profile& profile) { gpu_policy_from(profile); },
                      [](const std::vector<Measurement>& measurements, const Profile& profile) {
                        return judge_gpu_measurements(measurements, gpu_policy_from(profile));
                      },
                      JudgeScope::whole_run});
}

}  // namespace fabcheck
