// Registers the gpu.* probes listed in probes.def (a file each: health_probe.cpp, hbm_bw_probe.cpp,
// ...), the NVML error-counter monitor and the GPU judges.
#include "kernels/register.hpp"

#include <memory>
#include <utility>
#include <vector>

#include "kernels/gemm_hashes.hpp"
#include "kernels/gpu_error_counters.hpp"
#include "kernels/gpu_judgement.hpp"
#include "kernels/sdc_comparison.hpp"
#include "kernels/throttle_analysis.hpp"

namespace fabcheck {

#define FABCHECK_PROBE(factory) std::unique_ptr<Probe> factory();
#include "kernels/probes.def"
#undef FABCHECK_PROBE

void register_kernel_probes(Registry& registry) {
#define FABCHECK_PROBE(factory) registry.add(factory());
#include "kernels/probes.def"
#undef FABCHECK_PROBE
  registry.add_counter_monitor(gpu_error_counter_monitor());
  Judge throttling;
  throttling.name = "gpu throttling";
  throttling.judge = [](const std::vector<Measurement>& measurements, const Profile&) {
    return judge_throttling(measurements);
  };
  throttling.reads = throttling_judge_reads();
  registry.add_judge(std::move(throttling));
  Judge counters;
  counters.name = "gpu error counters";
  counters.judge = [](const std::vector<Measurement>& measurements, const Profile&) {
    return judge_gpu_error_counters(measurements);
  };
  counters.reads = gpu_error_counters_judge_reads();
  registry.add_judge(std::move(counters));
  Judge sdc;
  sdc.name = "gpu sdc";
  sdc.judge = [](const std::vector<Measurement>& measurements, const Profile&) {
    return judge_gpu_sdc(measurements);
  };
  sdc.reads = {{kGpuSdcProbe, kSmMismatchMetric}, {kHbmPatternsProbe, kPatternMismatchMetric}};
  registry.add_judge(std::move(sdc));
  // Like GPUs of the run (and of the fleet, in `fabcheck evaluate`) against each other.
  Judge hashes;
  hashes.name = "gemm hashes";
  hashes.judge = [](const std::vector<Measurement>& measurements, const Profile&) {
    return judge_gemm_hashes(measurements);
  };
  hashes.scope = JudgeScope::whole_run;
  hashes.across_runs = true;
  hashes.reads = kGemmHashReads;
  registry.add_judge(std::move(hashes));
  // Slow, hot, throttled GPUs are told from their peers, so the judge sees the whole run at once.
  Judge gpu;
  gpu.name = "gpu";
  gpu.settings = gpu_node_settings();
  gpu.validate = [](const Profile& profile) { gpu_policy_from(profile); };
  gpu.judge = [](const std::vector<Measurement>& measurements, const Profile& profile) {
    return judge_gpu_measurements(measurements, gpu_policy_from(profile));
  };
  gpu.scope = JudgeScope::whole_run;
  gpu.reads = gpu_judge_reads();
  registry.add_judge(std::move(gpu));
}

}  // namespace fabcheck
