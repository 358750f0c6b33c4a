// Registers the node.* and host.* probes and their judges.
#include "host/register.hpp"

#include "host/host_cpu.hpp"
#include "host/kernel_log_scan.hpp"
#include "host/memory_bandwidth.hpp"
#include "host/numa_binding.hpp"
#include "host/preflight.hpp"
#include "host/probes.hpp"

namespace fabcheck {

void register_host_probes(Registry& registry) {
  registry.add(make_preflight_probe());
  registry.add(make_kernel_log_probe());
  registry.add(make_host_cpu_probe());
  registry.add(make_host_numa_probe());
  registry.add(make_host_mem_bw_probe());
  registry.add_judge({"preflight",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_preflight(measurements);
                      },
                      JudgeScope::each_probe});
  registry.add_judge({"versions",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_version_drift(measurements);
                      },
                      JudgeScope::whole_run});
  registry.add_judge({"host.cpu",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_host_cpu(measurements);
                      },
                      JudgeScope::each_probe});
  registry.add_judge({"host.numa",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_numa(measurements);
                      },
                      JudgeScope::each_probe});
  registry.add_judge({"host.mem_bw",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_memory_bandwidth(measurements);
                      },
                      JudgeScope::each_probe});
  registry.add_judge({"kernel_log",
                      {},
                      nullptr,
                      [](const std::vector<Measurement>& measurements, const Profile&) {
                        return judge_kernel_log(measurements);
                      },
                      JudgeScope::each_probe});
}

}  // namespace fabcheck
