// The CPUs a process may use as its cgroups set them: the CPU quota (v2 cpu.max, v1
// cpu.cfs_quota_us / cpu.cfs_period_us; the tightest over the hierarchy) and the cpuset, read
// under a root so that fixture trees stand in for /sys/fs/cgroup.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

struct CgroupCpuLimits {
  int version = 0;                    // 2 (unified), 1 (v1 cpu / cpuset controllers), 0: none found
  std::string path;                   // the process's cgroup ("/slurm/uid_0/job_42/step_0")
  std::optional<double> quota_cores;  // quota / period of the tightest limit; nullopt: unlimited
  std::string quota_file;             // the file that sets it, for evidence
  std::vector<int> cpuset;            // effective cpuset; empty when unknown
  std::string cpuset_file;
};

// `proc_self_cgroup` is the text of /proc/self/cgroup ("0::/path", "4:cpu,cpuacct:/path"); files
// are read under <root>/sys/fs/cgroup. Unreadable or missing files leave the field unknown.
CgroupCpuLimits read_cgroup_cpu_limits(const std::filesystem::path& root,
                                       const std::string& proc_self_cgroup);

// This process's limits: <root>/proc/self/cgroup and the tree under root ("/" live).
CgroupCpuLimits this_process_cgroup_cpu_limits(const std::filesystem::path& root);

}  // namespace fabcheck
