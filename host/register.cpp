// Registers the node.* and host.* probes listed in probes.def (a file each: preflight_probe.cpp,
// kernel_log_probe.cpp, ...) and their judges.
#include "host/register.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "host/host_cpu.hpp"
#include "host/kernel_log_scan.hpp"
#include "host/memory_bandwidth.hpp"
#include "host/node_hardware.hpp"
#include "host/numa_binding.hpp"
#include "host/preflight.hpp"
#include "host/sdc_cores.hpp"

namespace fabcheck {

#define FABCHECK_PROBE(factory) std::unique_ptr<Probe> factory();
#include "host/probes.def"
#undef FABCHECK_PROBE

namespace {

// A judge with no [node] keys that reads `reads` of the run's measurements.
Judge judge_of(std::string name, JudgeScope scope,
               std::function<std::vector<Finding>(const std::vector<Measurement>&)> rule,
               std::vector<FigureRef> reads) {
  Judge judge;
  judge.name = std::move(name);
  judge.judge = [rule = std::move(rule)](const std::vector<Measurement>& measurements,
                                         const Profile&) { return rule(measurements); };
  judge.scope = scope;
  judge.reads = std::move(reads);
  return judge;
}

}  // namespace

void register_host_probes(Registry& registry) {
#define FABCHECK_PROBE(factory) registry.add(factory());
#include "host/probes.def"
#undef FABCHECK_PROBE
  // Each judge reads its own probe's records only (and "versions" only that record of
  // node.preflight): tests/unit/cli/judge_reads_test.cpp holds them to it.
  using Records = std::vector<Measurement>;
  registry.add_judge(judge_of("preflight", JudgeScope::each_probe,
                              [](const Records& m) { return judge_preflight(m); },
                              {{kPreflightProbe, ""}}));
  // The node's GPUs and NVMe controllers on the bus against [node] gpus, nvme, nvme_model: a GPU
  // that cannot be used fails whatever the profile.
  Judge hardware;
  hardware.name = "node_hardware";
  hardware.settings = node_hardware_settings();
  hardware.validate = [](const Profile& profile) { node_hardware_expected(profile); };
  hardware.judge = [](const Records& m, const Profile& profile) {
    return judge_node_hardware(m, node_hardware_expected(profile));
  };
  hardware.reads = {{kPreflightProbe, kGpusOnBusMetric},
                    {kPreflightProbe, kGpusUnusableMetric},
                    {kPreflightProbe, kNvmeOnBusMetric}};
  registry.add_judge(std::move(hardware));
  registry.add_judge(judge_of("versions", JudgeScope::whole_run,
                              [](const Records& m) { return judge_version_drift(m); },
                              {{kPreflightProbe, kVersionsMetric}}));
  registry.add_judge(judge_of("host.cpu", JudgeScope::each_probe,
                              [](const Records& m) { return judge_host_cpu(m); },
                              {{kHostCpuProbe, ""}}));
  registry.add_judge(judge_of("host.numa", JudgeScope::each_probe,
                              [](const Records& m) { return judge_numa(m); },
                              {{kHostNumaProbe, ""}}));
  registry.add_judge(judge_of("host.mem_bw", JudgeScope::each_probe,
                              [](const Records& m) { return judge_memory_bandwidth(m); },
                              {{kHostMemBwProbe, kNumaTriadMetric}}));
  registry.add_judge(judge_of("host.sdc", JudgeScope::each_probe,
                              [](const Records& m) { return judge_sdc_cores(m); },
                              {{kHostSdcProbe, ""}}));
  registry.add_judge(judge_of("kernel_log", JudgeScope::each_probe,
                              [](const Records& m) { return judge_kernel_log(m); },
                              {{kKernelLogProbe, ""}}));
}

}  // namespace fabcheck
