// host.cpu: cgroup v1/v2 limits from fixture trees, /proc parsing, other processes' CPU between two
// readings, a live CPU-burning child named as the top consumer with its real share, the judgement.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "host/cgroup_cpu.hpp"
#include "host/cpu_usage.hpp"
#include "host/host_cpu.hpp"

namespace fabcheck {
namespace {

const std::string kCgroups = std::string(FABCHECK_FIXTURES_DIR) + "/host/cgroup/";

std::string proc_cgroup(const std::string& fixture) {
  std::ifstream in(kCgroups + fixture + "/proc/self/cgroup");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CgroupCpu, V2TightestQuotaOverTheHierarchyAndEffectiveCpuset) {
  const auto limits = this_process_cgroup_cpu_limits(kCgroups + "v2-quota");
  EXPECT_EQ(limits.version, 2);
  EXPECT_EQ(limits.path, "/kubepods/pod7/ctr");
  ASSERT_TRUE(limits.quota_cores);
  EXPECT_DOUBLE_EQ(*limits.quota_cores, 4.0);  // the pod's 4, not the container's 6
  EXPECT_NE(limits.quota_file.find("kubepods/pod7/cpu.max"), std::string::npos);
  ASSERT_EQ(limits.cpuset.size(), 16u);
  EXPECT_EQ(limits.cpuset.front(), 0);
  EXPECT_EQ(limits.cpuset.back(), 15);
}

TEST(CgroupCpu, V1JobQuotaAndStepCpuset) {
  const auto limits = read_cgroup_cpu_limits(kCgroups + "v1-quota", proc_cgroup("v1-quota"));
  EXPECT_EQ(limits.version, 1);
  EXPECT_EQ(limits.path, "/slurm/uid_0/job_42/step_0");
  ASSERT_TRUE(limits.quota_cores);
  EXPECT_DOUBLE_EQ(*limits.quota_cores, 2.0);  // the job's; the step and the root set none (-1)
  ASSERT_EQ(limits.cpuset.size(), 16u);
  EXPECT_EQ(limits.cpuset.front(), 8);
  EXPECT_EQ(limits.cpuset.back(), 47);
}

TEST(CgroupCpu, UnlimitedAndMissing) {
  const auto limits = this_process_cgroup_cpu_limits(kCgroups + "v2-unlimited");
  EXPECT_EQ(limits.version, 2);
  EXPECT_FALSE(limits.quota_cores);
  EXPECT_EQ(limits.cpuset.size(), 8u);  // from the root
  const auto none = read_cgroup_cpu_limits(kCgroups + "no-such", "");
  EXPECT_EQ(none.version, 0);
  EXPECT_FALSE(none.quota_cores);
  EXPECT_TRUE(none.cpuset.empty());
}

TEST(CpuUsage, ParsesStatWithAwkwardCommands) {
  ProcessCpu process;
  ASSERT_TRUE(parse_process_stat(
      "4121 (data loader) (1)) R 1 4121 4121 0 -1 4194304 2201 0 0 0 750 250 0 0 20 0 9 0 "
      "123456 1000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0",
      process));
  EXPECT_EQ(process.command, "data loader) (1)");
  EXPECT_EQ(process.parent, 1);
  EXPECT_EQ(process.ticks, 1000u);
  EXPECT_EQ(process.started, 123456u);
  EXPECT_FALSE(parse_process_stat("4121 (x) R 1 2", process));
  EXPECT_FALSE(parse_process_stat("garbage", process));
}

TEST(CpuUsage, OtherProcessesBetweenTwoReadings) {
  const std::map<int, ProcessCpu> before = {
      {1, {"systemd", 0, 100, 1}}, {50, {"fabcheck", 40, 1000, 500}},
      {40, {"prted", 1, 10, 400}}, {77, {"python3", 1, 5000, 700}},
      {90, {"old", 1, 300, 800}},
  };
  std::map<int, ProcessCpu> after = before;
  after[50].ticks += 190;           // our own rank: left out
  after[40].ticks += 5;             // its launcher: left out
  after[77].ticks += 150;           // 1.5 cores over 1 s at 100 ticks/s
  after[90] = {"new", 1, 20, 990};  // pid reused: counts from zero
  after[91] = {"born", 1, 30, 995};
  const auto excluded = with_ancestors({50}, after);
  EXPECT_EQ(excluded, (std::set<int>{40, 50}));
  const auto consumers = cpu_consumers(before, after, 1.0, 100, excluded);
  ASSERT_EQ(consumers.size(), 3u);
  EXPECT_EQ(consumers[0].pid, 77);
  EXPECT_DOUBLE_EQ(consumers[0].cores, 1.5);
  EXPECT_EQ(consumers[1].pid, 91);
  EXPECT_EQ(consumers[2].pid, 90);
  EXPECT_DOUBLE_EQ(consumers[2].cores, 0.2);
  // Without the busy process nothing is left worth a finding.
  after[77].ticks = before.at(77).ticks;
  after.erase(90);
  after.erase(91);
  EXPECT_TRUE(cpu_consumers(before, after, 1.0, 100, excluded).empty());
  EXPECT_DOUBLE_EQ(steal_fraction({1000, 500, 10}, {2000, 900, 60}), 0.05);
}

HostCpuSample quiet_sample() {
  HostCpuSample sample;
  sample.affinity = {0, 1, 2, 3, 4, 5, 6, 7};
  sample.online_cpus = 8;
  sample.window_s = 2;
  return sample;
}

std::vector<Finding> judged(const HostCpuSample& sample, int ranks = 1) {
  return judge_host_cpu(host_cpu_measurements(sample, ranks));
}

// Issue 21: host.cpu alone ended INCOMPLETE ("nothing was judged") though it compared the others'
// CPU use with its limit: that comparison is a PASS.
TEST(HostCpuJudge, QuietHostPassesTheLoadItCompared) {
  const auto findings = judged(quiet_sample());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_EQ(findings[0].metric, "other_cpu_cores");
  EXPECT_NE(findings[0].message.find("other processes took 0.00 cores of 8.00"), std::string::npos)
      << findings[0].message;
}

TEST(HostCpuJudge, NamesTheTopConsumers) {
  auto sample = quiet_sample();
  sample.consumers = {{4121, "preprocess.py", 1.2}, {88, "kworker/3:1", 0.1}};
  auto findings = judged(sample);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_NE(findings[0].message.find("4121 (preprocess.py) 1.20 cores"), std::string::npos)
      << findings[0].message;
  sample.consumers = {{4121, "preprocess.py", 4.0}};
  findings = judged(sample);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity,
            Severity::warn);  // half of the 8 usable CPUs: still the operator's call
  sample.consumers = {{4121, "preprocess.py", 0.4}};  // below 0.5 cores
  findings = judged(sample);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
}

TEST(HostCpuJudge, QuotaBelowCpusetGovernorStealAndTooFewCpus) {
  auto sample = quiet_sample();
  sample.cgroup.version = 2;
  sample.cgroup.quota_cores = 2;
  sample.cgroup.cpuset = {0, 1, 2, 3, 4, 5, 6, 7};
  sample.frequencies.cpus_read = 8;
  sample.frequencies.governors = {{"powersave", 6}, {"performance", 2}};
  sample.steal_fraction = 0.25;
  std::map<std::string, Severity> by_metric;
  for (const auto& f : judged(sample, 4)) by_metric[f.metric] = f.severity;
  EXPECT_EQ(by_metric["cpu_quota_cores"], Severity::warn);
  EXPECT_EQ(by_metric["cpu_governor"], Severity::warn);
  EXPECT_EQ(by_metric["steal_pct"], Severity::fail);
  EXPECT_EQ(by_metric["usable_cpus"], Severity::fail);  // 4 ranks on 2 cores of quota
  EXPECT_EQ(by_metric["other_cpu_cores"], Severity::pass);
  EXPECT_EQ(by_metric.size(), 5u);
}

// A child that keeps one CPU busy for `seconds`.
pid_t start_burner(double seconds) {
  const pid_t pid = fork();
  if (pid == 0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    volatile unsigned long spin = 0;
    while (std::chrono::steady_clock::now() < end) spin = spin + 1;
    _exit(0);
  }
  return pid;
}

TEST(HostCpuLive, ACpuBurningChildIsTheTopConsumerWithItsShare) {
  const auto started = std::chrono::steady_clock::now();
  const pid_t burner = start_burner(2.0);
  ASSERT_GT(burner, 0);
  HostCpuSampling how;
  how.window_s = 1.0;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const HostCpuSample sample = sample_host_cpu(how);
  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(burner, &status, 0, &usage), burner);
  const double lifetime_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double used_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  const double real_share = used_s / std::min(lifetime_s, 2.0);  // its cores while it ran
  const auto found = std::find_if(sample.consumers.begin(), sample.consumers.end(),
                                  [&](const CpuConsumer& c) { return c.pid == burner; });
  ASSERT_NE(found, sample.consumers.end()) << "the burner was not seen";
  // The busiest process here (on a shared build machine, another busy process may come close).
  EXPECT_GE(found->cores + 0.35, sample.consumers.front().cores);
  EXPECT_NEAR(found->cores, real_share, 0.25)
      << "measured " << found->cores << " cores, it used " << real_share;
  // The finding's list names the busiest five; on a quiet machine the burner heads it.
  const auto measurements = host_cpu_measurements(sample, 1);
  const auto other =
      std::find_if(measurements.begin(), measurements.end(),
                   [](const Measurement& m) { return m.metric == "other_cpu_cores"; });
  ASSERT_NE(other, measurements.end());
  EXPECT_EQ(other->params.at("top_pid"), std::to_string(sample.consumers.front().pid));
  if (found - sample.consumers.begin() < 5) {
    EXPECT_NE(other->params.at("top").find(std::to_string(burner) + " ("), std::string::npos)
        << other->params.at("top");
  }
}

}  // namespace
}  // namespace fabcheck
