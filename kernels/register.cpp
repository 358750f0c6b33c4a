// Registers the gpu.* probes listed in probes.def (a file each: health_probe.cpp, hbm_bw_probe.cpp,
// ...), the NVML error-counter monitor and the GPU judges.
#include "kernels/register.hpp"

#include <memory>
#include <vector>

#include "kernels/gpu_error_counters.hpp"
#include "kernels/gpu_judgement.hpp"
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
