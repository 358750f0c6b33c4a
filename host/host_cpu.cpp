// host.cpu readings, measurements and judgement.
#include "host/host_cpu.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "bench/sys/cpu_list.hpp"
#include "bench/sys/sysfs_file.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

std::string fixed(double value, int digits = 2) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

double usable_cpus(const HostCpuSample& s) {
  double usable = static_cast<double>(s.affinity.empty() ? s.online_cpus : s.affinity.size());
  if (!s.cgroup.cpuset.empty())
    usable = std::min(usable, static_cast<double>(s.cgroup.cpuset.size()));
  if (s.cgroup.quota_cores) usable = std::min(usable, *s.cgroup.quota_cores);
  return usable;
}

}  // namespace

CpuFrequencies read_cpu_frequencies(const std::filesystem::path& sysfs_root,
                                    const std::vector<int>& cpus) {
  CpuFrequencies out;
  double sum = 0;
  for (int cpu : cpus) {
    const auto dir =
        sysfs_root / "sys/devices/system/cpu" / ("cpu" + std::to_string(cpu)) / "cpufreq";
    const auto governor = read_sysfs_text(dir / "scaling_governor");
    if (!governor) continue;
    ++out.cpus_read;
    ++out.governors[*governor];
    if (auto current = text::parse_number(read_sysfs_text(dir / "scaling_cur_freq").value_or(""))) {
      const double mhz = *current / 1000;
      sum += mhz;
      out.min_mhz = out.min_mhz == 0 ? mhz : std::min(out.min_mhz, mhz);
    }
    if (auto most = text::parse_number(read_sysfs_text(dir / "cpuinfo_max_freq").value_or("")))
      out.max_mhz = std::max(out.max_mhz, *most / 1000);
  }
  if (out.cpus_read > 0) out.mean_mhz = sum / out.cpus_read;
  return out;
}

HostCpuSample sample_host_cpu(const HostCpuSampling& how) {
  HostCpuSample sample;
  sample.cgroup = this_process_cgroup_cpu_limits(how.root);
  sample.affinity = how.job_cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sample.affinity.empty() && sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) sample.affinity.push_back(cpu);
    }
  }
  sample.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  sample.frequencies = read_cpu_frequencies(how.sysfs_root, sample.affinity);
  const auto proc = how.root / "proc";
  const auto machine_before = read_machine_cpu(proc);
  const auto before = read_process_cpu(proc);
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(how.window_s));
  const auto after = read_process_cpu(proc);
  sample.window_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto machine_after = read_machine_cpu(proc);
  std::set<int> job = how.job_pids;
  job.insert(static_cast<int>(getpid()));
  const std::set<int> excluded = with_ancestors(job, after);
  sample.consumers = cpu_consumers(before, after, sample.window_s,
                                   static_cast<double>(sysconf(_SC_CLK_TCK)), excluded);
  sample.steal_fraction = steal_fraction(machine_before, machine_after);
  return sample;
}

std::vector<Measurement> host_cpu_measurements(const HostCpuSample& s, int ranks_on_host) {
  std::vector<Measurement> out;
  const double usable = usable_cpus(s);
  Measurement cpus = make_measurement(kHostCpuProbe, "usable_cpus", usable, "count", "node");
  cpus.params["online"] = std::to_string(s.online_cpus);
  cpus.params["affinity"] = format_cpu_list(s.affinity);
  cpus.params["ranks_on_host"] = std::to_string(ranks_on_host);
  if (s.cgroup.version > 0)
    cpus.params["cgroup"] = "v" + std::to_string(s.cgroup.version) + " " + s.cgroup.path;
  if (!s.cgroup.cpuset.empty()) {
    cpus.params["cpuset"] = format_cpu_list(s.cgroup.cpuset);
    cpus.params["cpuset_file"] = s.cgroup.cpuset_file;
  }
  if (s.cgroup.quota_cores) {
    cpus.params["quota_cores"] = fixed(*s.cgroup.quota_cores);
    cpus.params["quota_file"] = s.cgroup.quota_file;
  }
  out.push_back(cpus);
  if (s.cgroup.quota_cores) {
    Measurement quota =
        make_measurement(kHostCpuProbe, "cpu_quota_cores", *s.cgroup.quota_cores, "cores", "node");
    quota.params["file"] = s.cgroup.quota_file;
    quota.params["cpuset_cpus"] =
        std::to_string(s.cgroup.cpuset.empty() ? s.affinity.size() : s.cgroup.cpuset.size());
    out.push_back(std::move(quota));
  }
  if (s.frequencies.cpus_read > 0) {
    int others = 0;
    std::string list;
    for (const auto& [governor, count] : s.frequencies.governors) {
      if (governor != "performance") others += count;
      list += (list.empty() ? "" : ",") + governor + ":" + std::to_string(count);
    }
    Measurement governor = make_measurement(kHostCpuProbe, "cpu_governor", others, "count", "node");
    governor.params["governors"] = list;
    governor.params["cpus"] = std::to_string(s.frequencies.cpus_read);
    out.push_back(std::move(governor));
    Measurement frequency =
        make_measurement(kHostCpuProbe, "cpu_freq_mhz", s.frequencies.mean_mhz, "MHz", "node");
    frequency.params["min_mhz"] = fixed(s.frequencies.min_mhz, 0);
    frequency.params["max_mhz"] = fixed(s.frequencies.max_mhz, 0);
    out.push_back(std::move(frequency));
  } else {
    Measurement none = make_measurement(kHostCpuProbe, "cpu_governor", 0, "count", "node");
    none.status = MeasurementStatus::waived;
    none.message =
        "no cpufreq in sysfs (a virtual machine, or no driver): governor and clock unknown";
    out.push_back(std::move(none));
  }
  Measurement steal =
      make_measurement(kHostCpuProbe, "steal_pct", 100 * s.steal_fraction, "%", "node");
  steal.params["window_s"] = fixed(s.window_s);
  out.push_back(std::move(steal));
  double others = 0;
  std::string top;
  for (std::size_t i = 0; i < s.consumers.size(); ++i) {
    others += s.consumers[i].cores;
    if (i < 5) {
      top += (top.empty() ? "" : "; ") + std::to_string(s.consumers[i].pid) + " (" +
             s.consumers[i].command + ") " + fixed(s.consumers[i].cores) + " cores";
    }
  }
  Measurement other = make_measurement(kHostCpuProbe, "other_cpu_cores", others, "cores", "node");
  other.params["window_s"] = fixed(s.window_s);
  other.params["usable_cpus"] = fixed(usable);
  other.params["processes"] = std::to_string(s.consumers.size());
  if (!s.consumers.empty()) {
    other.params["top"] = top;
    other.params["top_pid"] = std::to_string(s.consumers.front().pid);
    other.params["top_command"] = s.consumers.front().command;
    other.params["top_cores"] = fixed(s.consumers.front().cores, 3);
  }
  out.push_back(std::move(other));
  return out;
}

std::vector<Finding> judge_host_cpu(const std::vector<Measurement>& measurements,
                                    const HostCpuPolicy& policy) {
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    if (m.probe != kHostCpuProbe || m.status != MeasurementStatus::ok) continue;
    const FindingAdder add(m, out);
    if (m.metric == "usable_cpus") {
      const double ranks = std::atof(param_of(m, "ranks_on_host").c_str());
      if (ranks > 0 && m.value < ranks) {
        add(Severity::fail, ranks,
            std::to_string(static_cast<int>(ranks)) + " ranks on this host may use only " +
                fixed(m.value) + " CPUs (affinity " + param_of(m, "affinity") +
                (param_of(m, "cpuset").empty() ? "" : ", cpuset " + param_of(m, "cpuset")) +
                (param_of(m, "quota_cores").empty() ? ""
                                                    : ", quota " + param_of(m, "quota_cores")) +
                ")",
            "give the job at least a core per rank and more for its data loaders: Slurm "
            "--cpus-per-task / --cpus-per-gpu, or the container's CPU limit");
      }
    } else if (m.metric == "cpu_quota_cores") {
      const double cpuset = std::atof(param_of(m, "cpuset_cpus").c_str());
      if (cpuset > 0 && m.value + 0.5 < cpuset) {
        add(Severity::warn, cpuset,
            "the cgroup's CPU quota allows " + fixed(m.value) + " cores while its cpuset has " +
                param_of(m, "cpuset_cpus") +
                " CPUs: threads beyond the quota are throttled in "
                "every period (" +
                param_of(m, "file") + ")",
            "raise the quota to the cpuset (Kubernetes: CPU limit = request; Slurm: "
            "ConstrainCores without a CPU limit) or shrink the cpuset to match");
      }
    } else if (m.metric == "cpu_governor" && m.value > 0) {
      add(Severity::warn, 0,
          "CPU frequency governor is not performance on " + fixed(m.value, 0) + " of " +
              param_of(m, "cpus") + " CPUs (" + param_of(m, "governors") + ")",
          "cpupower frequency-set -g performance (and the BIOS power profile to performance): "
          "the launch and data-loading paths wait on clock ramp-up otherwise");
    } else if (m.metric == "steal_pct" && m.value > policy.steal_warn_pct) {
      add(m.value > policy.steal_fail_pct ? Severity::fail : Severity::warn, policy.steal_warn_pct,
          "the hypervisor stole " + fixed(m.value, 1) + "% of CPU time over " +
              param_of(m, "window_s") + " s",
          "the VM's vCPUs are oversubscribed on their host: ask for dedicated cores (pinned "
          "vCPUs) or move the VM");
    } else if (m.metric == "other_cpu_cores") {
      const double usable = std::atof(param_of(m, "usable_cpus").c_str());
      const double warn_at = std::max(policy.other_warn_cores, policy.other_warn_fraction * usable);
      if (m.value < warn_at) {
        // Compared with its limit: a judgement, so a run of host.cpu alone has a verdict.
        Finding f = finding_about(m, Severity::pass);
        f.expected = warn_at;
        f.message = "other processes took " + fixed(m.value) + " cores of " + fixed(usable) +
                    " over " + param_of(m, "window_s") + " s (WARN from " + fixed(warn_at) + ")";
        out.push_back(std::move(f));
        continue;
      }
      Finding f = finding_about(m, Severity::warn);
      f.expected = warn_at;
      f.message = "other processes took " + fixed(m.value) + " cores of " + fixed(usable) +
                  " over " + param_of(m, "window_s") + " s; top: " + param_of(m, "top");
      f.evidence =
          "/proc/<pid>/stat utime+stime over the window, this job's ranks and their "
          "launchers left out";
      f.remedy =
          "stop or move what competes with the job (ps -fp " + param_of(m, "top_pid") +
          "): data loaders and NCCL's proxy threads starve otherwise; Slurm: OverSubscribe=NO";
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace fabcheck
