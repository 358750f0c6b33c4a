// host.cpu: the CPUs a job may use on this host (affinity, cgroup cpuset and quota), the frequency
// governor and clock, steal time, and the CPU other processes took during a window with the top
// consumers named; their measurements and judgement.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "host/cgroup_cpu.hpp"
#include "host/cpu_usage.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kHostCpuProbe = "host.cpu";

struct CpuFrequencies {
  std::map<std::string, int> governors;  // "performance" -> CPUs using it
  int cpus_read = 0;                     // CPUs with a cpufreq directory
  double mean_mhz = 0;                   // scaling_cur_freq over those CPUs
  double min_mhz = 0;
  double max_mhz = 0;  // cpuinfo_max_freq, the highest
};

// cpufreq of `cpus` under <sysfs_root>/sys/devices/system/cpu (none in most VMs).
CpuFrequencies read_cpu_frequencies(const std::filesystem::path& sysfs_root,
                                    const std::vector<int>& cpus);

struct HostCpuSample {
  CgroupCpuLimits cgroup;
  std::vector<int> affinity;  // where this job's ranks on the host may run (union of affinities)
  int online_cpus = 0;
  CpuFrequencies frequencies;
  double window_s = 0;
  double steal_fraction = 0;
  std::vector<CpuConsumer> consumers;  // other processes, most first
};

struct HostCpuSampling {
  std::filesystem::path root = "/";  // /proc and /sys/fs/cgroup below it
  std::filesystem::path sysfs_root = "/";
  double window_s = 2;
  std::set<int> job_pids;     // this job's ranks on this host: not "other" (nor their launchers)
  std::vector<int> job_cpus;  // the union of their affinities; empty: this process's own
};

// Reads everything, sleeping through the window between the two /proc readings.
HostCpuSample sample_host_cpu(const HostCpuSampling& how);

struct HostCpuPolicy {
  // Others took at least this many cores and this share of the usable CPUs: WARN. Never FAIL: a
  // competing process is for the operator to end, not a reason to drain the node.
  double other_warn_cores = 0.5;
  double other_warn_fraction = 0.10;
  double steal_warn_pct = 5;
  double steal_fail_pct = 20;
};

// usable_cpus, cpu_quota_cores (when a quota is set), cpu_governor, cpu_freq_mhz, steal_pct and
// other_cpu_cores (params top: "4121 (python3) 0.98 cores; ...") under host.cpu, subject "node".
std::vector<Measurement> host_cpu_measurements(const HostCpuSample& sample, int ranks_on_host);

std::vector<Finding> judge_host_cpu(const std::vector<Measurement>& measurements,
                                    const HostCpuPolicy& policy = {});

}  // namespace fabcheck
