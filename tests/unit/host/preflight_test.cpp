// node.preflight through an NVML test double (tests/doubles/fake_nvml.hpp): a foreign process
// on one GPU makes the node unfit, the finding names the process, and a whole run waives the heavy
// probes with that reason while the light ones still run; versions that differ between hosts WARN.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/core/registry.hpp"
#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "host/gpu_preflight.hpp"
#include "host/preflight.hpp"
#include "host/preflight_probe.hpp"
#include "tests/doubles/fake_nvml.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

std::vector<testing::FakeGpu> eight_idle_gpus() {
  std::vector<testing::FakeGpu> gpus(8);
  for (int i = 0; i < 8; ++i) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "00000000:%02x:00.0", 0x18 + 0x10 * i);
    gpus[i].bus_id = bus;
    gpus[i].reasons = 0x1;  // idle
  }
  return gpus;
}

std::vector<Measurement> preflight_of(std::vector<testing::FakeGpu> gpus) {
  auto shared = std::make_shared<std::vector<testing::FakeGpu>>(std::move(gpus));
  const NvmlSession session = start_nvml(testing::make_fake_nvml(shared));
  EXPECT_TRUE(session.ok()) << session.reason;
  std::vector<std::string> unreadable;
  auto gpus_read = read_gpu_preflight(*session.api, session.device_count, {1}, {}, unreadable);
  return gpu_preflight_measurements(gpus_read, kPreflightProbe);
}

TEST(Preflight, IdleNodeIsFit) {
  const auto measurements = preflight_of(eight_idle_gpus());
  EXPECT_GE(measurements.size(), 8u * 5);
  const auto findings = judge_preflight(measurements);
  ASSERT_EQ(findings.size(), 1u);  // one PASS for the node: its fitness was judged
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_EQ(findings[0].metric, "fitness");
  EXPECT_NE(findings[0].message.find("fit to be measured"), std::string::npos)
      << findings[0].message;
}

TEST(Preflight, ForeignProcessIsNamedAndFails) {
  auto gpus = eight_idle_gpus();
  gpus[3].processes = {{4121, 30'000'000'000ULL, "train.py"}};
  gpus[3].memory_used = 30'560'000'000ULL;
  gpus[3].utilization = 97;
  const auto findings = judge_preflight(preflight_of(gpus));
  ASSERT_EQ(findings.size(), 3u);  // the process, the utilisation, the memory
  for (const auto& f : findings) {
    EXPECT_EQ(f.severity, Severity::fail);
    EXPECT_EQ(f.subject, "gpu3");
  }
  EXPECT_NE(findings[0].message.find("4121 train.py 30.0 GB"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("0000:48:00.0"), std::string::npos);
  // Our own process is not foreign.
  gpus = eight_idle_gpus();
  gpus[1].processes = {{1, 500'000'000ULL, "fabcheck"}};
  const auto own = judge_preflight(preflight_of(gpus));
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].severity, Severity::pass);
}

TEST(Preflight, RepairsPendingPersistenceAndRetiredPages) {
  auto gpus = eight_idle_gpus();
  gpus[0].remap_pending = 1;
  gpus[1].retired_pending = true;
  gpus[2].remap_failed = 1;
  gpus[3].persistence = false;
  gpus[4].retired_sbe = 50;
  gpus[4].retired_dbe = 10;
  gpus[5].retired_sbe = 59;
  std::map<std::string, Severity> by;
  for (const auto& f : judge_preflight(preflight_of(gpus)))
    by[f.subject + " " + f.metric] = f.severity;
  EXPECT_EQ(by["gpu0 row_remap_pending"], Severity::fail);
  EXPECT_EQ(by["gpu1 retired_pages_pending"], Severity::fail);
  EXPECT_EQ(by["gpu2 row_remap_failure"], Severity::fail);
  EXPECT_EQ(by["gpu3 persistence_mode"], Severity::warn);
  EXPECT_EQ(by["gpu4 retired_pages"], Severity::fail);  // 60: at the limit
  EXPECT_EQ(by.count("gpu5 retired_pages"), 0u);        // 59
  EXPECT_EQ(by.size(), 5u);
}

// A probe that loads the GPUs (heavy) or not, recording that it ran.
class FakeProbe final : public Probe {
 public:
  FakeProbe(std::string id, bool heavy)
      : Probe({.id = std::move(id),
               .description = "test",
               .metrics = {{"value", {"count", Better::higher}}},
               .heavy = heavy}) {}
  void run(RunContext&, MeasurementSink& sink) override {
    Measurement m;
    m.probe = id();
    m.metric = "value";
    m.value = 1;
    sink.emit(m);
  }
};

nlohmann::json run_with(std::vector<testing::FakeGpu> gpus,
                        std::map<std::string, std::string> extra,
                        const std::filesystem::path& out) {
  static std::shared_ptr<std::vector<testing::FakeGpu>> shared;
  static NvmlSession session;
  shared = std::make_shared<std::vector<testing::FakeGpu>>(std::move(gpus));
  session = start_nvml(testing::make_fake_nvml(shared));
  std::vector<std::unique_ptr<Probe>> probes;
  probes.push_back(make_preflight_probe([]() -> const NvmlSession& { return session; }));
  probes.push_back(std::make_unique<FakeProbe>("test.light", false));
  probes.push_back(std::make_unique<FakeProbe>("test.heavy", true));
  RunRequest request;
  for (auto& probe : probes) request.probes.push_back(probe.get());
  request.judges.push_back(
      {"preflight",
       {},
       nullptr,
       [](const std::vector<Measurement>& m, const Profile&) { return judge_preflight(m); },
       JudgeScope::each_probe});
  request.options.extra = std::move(extra);
  request.options.sysfs_root = out / "no-sysfs";
  request.out_dir = out;
  request.versions = nlohmann::json::object();
  Runner runner(std::move(request));
  auto world = make_single_world();
  const int code = runner.execute(*world);
  std::ifstream in(out / "summary.json");
  nlohmann::json summary = nlohmann::json::parse(in);
  summary["test_exit_code"] = code;
  return summary;
}

TEST(PreflightRun, ForeignProcessWaivesTheHeavyProbesNamingIt) {
  testing::TempDir dir;
  auto gpus = eight_idle_gpus();
  // A process of this machine (the test's parent) stands for the other job's data loader.
  const unsigned other = static_cast<unsigned>(getppid());
  gpus[6].processes = {{other, 1'200'000'000ULL, "dataloader"}};
  const auto summary = run_with(gpus, {}, dir.path() / "run");
  EXPECT_EQ(summary["test_exit_code"], 1);  // the pre-flight's FAIL
  const auto& run = summary["probes"]["run"];
  EXPECT_NE(std::find(run.begin(), run.end(), "test.light"), run.end());
  EXPECT_EQ(std::find(run.begin(), run.end(), "test.heavy"), run.end());
  ASSERT_EQ(summary["probes"]["waived"].size(), 1u);
  const auto& waived = summary["probes"]["waived"][0];
  EXPECT_EQ(waived["id"], "test.heavy");
  const std::string reason = waived["reason"];
  EXPECT_NE(reason.find("node not fit to be measured"), std::string::npos) << reason;
  EXPECT_NE(reason.find("GPU gpu6"), std::string::npos) << reason;
  EXPECT_NE(reason.find(std::to_string(other) + " dataloader 1.2 GB"), std::string::npos) << reason;
}

TEST(PreflightRun, IdleNodeRunsEverythingAndEnforceOffRunsAnyway) {
  testing::TempDir dir;
  auto summary = run_with(eight_idle_gpus(), {}, dir.path() / "idle");
  EXPECT_EQ(summary["test_exit_code"], 0);
  EXPECT_EQ(summary["probes"]["waived"].size(), 0u);
  auto gpus = eight_idle_gpus();
  gpus[0].utilization = 100;
  summary = run_with(gpus, {{"preflight.enforce", "0"}}, dir.path() / "forced");
  EXPECT_EQ(summary["test_exit_code"], 1);  // still reported
  EXPECT_EQ(summary["probes"]["waived"].size(), 0u);
  const auto& run = summary["probes"]["run"];
  EXPECT_NE(std::find(run.begin(), run.end(), "test.heavy"), run.end());
}

TEST(PreflightVersions, AHostOffTheFleetsVersionWarns) {
  std::vector<Measurement> records;
  for (const char* host : {"node-a", "node-b", "node-c"}) {
    Measurement m;
    m.probe = kPreflightProbe;
    m.metric = "versions";
    m.host = host;
    m.subject = "node";
    m.params = {{"driver", "550.54.15"}, {"nccl", "2.21.5"}, {"kernel", "5.15.0-97-generic"}};
    if (std::string(host) == "node-b") m.params["driver"] = "535.161.08";
    records.push_back(m);
  }
  const auto findings = judge_version_drift(records);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[0].host, "node-b");
  EXPECT_EQ(findings[0].subject, "driver");
  EXPECT_NE(findings[0].message.find("535.161.08 while 2 of 3 hosts run 550.54.15"),
            std::string::npos)
      << findings[0].message;
  records.resize(1);
  EXPECT_TRUE(judge_version_drift(records).empty());
}

}  // namespace
}  // namespace fabcheck

namespace fabcheck {
namespace {

TEST(Preflight, AProcessOfAnotherPidNamespaceIsSaidSo) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(eight_idle_gpus());
  (*gpus)[2].processes = {{4121, 2'000'000'000ULL, "python3"}};
  const NvmlSession session = start_nvml(testing::make_fake_nvml(gpus));
  std::vector<std::string> unreadable;
  const auto read = read_gpu_preflight(
      *session.api, session.device_count, {1}, [](unsigned) { return false; }, unreadable);
  const auto findings = judge_preflight(gpu_preflight_measurements(read, kPreflightProbe));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("4121 (other pid namespace) 2.0 GB"), std::string::npos)
      << findings[0].message;
}

}  // namespace
}  // namespace fabcheck
