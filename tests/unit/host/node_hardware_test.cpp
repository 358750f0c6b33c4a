// The node's GPUs on the PCI bus against its drivers and its profile (synthetic bus trees in
// tests/fixtures/host/pci, NVML through the double): 8 GPUs without a driver, 7 of 8 seen by NVML
// and a profile promising GPUs where there are none FAIL naming the bus ids; 8 of 8 passes.
#include <gtest/gtest.h>

#include <memory>

#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/gpu_telemetry.hpp"
#include "bench/sys/nvml_reader.hpp"
#include "host/node_hardware.hpp"
#include "host/preflight.hpp"
#include "host/preflight_probe.hpp"
#include "tests/doubles/fake_nvml.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

const std::string kPci = std::string(FABCHECK_FIXTURES_DIR) + "/host/pci/";

std::vector<testing::FakeGpu> nvml_gpus(int lost = -1) {
  std::vector<testing::FakeGpu> gpus(8);
  for (int i = 0; i < 8; ++i) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "00000000:%02x:00.0", 0x18 + 0x10 * i);
    gpus[i].bus_id = bus;
    gpus[i].reasons = 0x1;
  }
  if (lost >= 0) gpus[lost].lost = true;
  return gpus;
}

GpuDriverView view_of(const std::vector<testing::FakeGpu>& gpus) {
  auto shared = std::make_shared<std::vector<testing::FakeGpu>>(gpus);
  const NvmlSession session = start_nvml(testing::make_fake_nvml(shared));
  EXPECT_TRUE(session.ok()) << session.reason;
  GpuDriverView view;
  for (const auto& gpu : read_nvml_identities(*session.api, session.device_count))
    view.nvml_bus_ids.insert(gpu.bus_id);
  return view;
}

std::vector<Finding> judged(const std::string& tree, const GpuDriverView& view,
                            std::optional<int> gpus) {
  NodeHardwareExpectation expected;
  expected.gpus = gpus;
  expected.gpus_from = "profile h100-sxm-8 [node] gpus";
  const auto hardware = compare_node_hardware(read_pci_devices(kPci + tree), view);
  return judge_node_hardware(node_hardware_measurements(hardware, kPreflightProbe), expected);
}

std::vector<Finding> of(const std::vector<Finding>& findings, Severity severity) {
  std::vector<Finding> out;
  for (const auto& f : findings) {
    if (f.severity == severity) out.push_back(f);
  }
  return out;
}

TEST(NodeHardware, EightGpusWithoutADriverFailNamingEachBusId) {
  GpuDriverView view;
  view.nvml_problem = "NVML: libnvidia-ml.so.1 not found (driver not present)";
  const auto findings = judged("no-driver", view, 8);
  const auto fails = of(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u) << findings.size();
  const std::string& message = fails[0].message;
  EXPECT_NE(message.find("8 of the 8 NVIDIA GPUs on the PCI bus"), std::string::npos) << message;
  EXPECT_NE(message.find("0000:18:00.0, 0000:28:00.0, 0000:38:00.0, 0000:48:00.0, 0000:58:00.0, "
                         "0000:68:00.0, 0000:78:00.0, 0000:88:00.0: no driver bound (the nvidia "
                         "kernel module is not loaded)"),
            std::string::npos)
      << message;
  EXPECT_NE(fails[0].remedy.find("modprobe nvidia"), std::string::npos);
  // The bus still has its eight: the count itself holds.
  EXPECT_EQ(of(findings, Severity::pass).size(), 1u);
}

TEST(NodeHardware, SevenOfEightSeenByNvmlFailsNamingTheMissingOne) {
  const auto findings = judged("eight-gpus", view_of(nvml_gpus(/*lost=*/5)), 8);
  const auto fails = of(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  const std::string& message = fails[0].message;
  EXPECT_NE(message.find("1 of the 8 NVIDIA GPUs"), std::string::npos) << message;
  EXPECT_NE(message.find("0000:68:00.0: not seen by NVML"), std::string::npos) << message;
  EXPECT_EQ(message.find("0000:58:00.0"), std::string::npos) << message;
}

TEST(NodeHardware, EightOfEightPasses) {
  const auto findings = judged("eight-gpus", view_of(nvml_gpus()), 8);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_NE(findings[0].message.find("8 NVIDIA GPUs on the PCI bus"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("10de:2330 x8"), std::string::npos) << findings[0].message;
}

TEST(NodeHardware, CudaWithoutADeviceIsNamedPerGpu) {
  GpuDriverView view = view_of(nvml_gpus());
  view.cuda_problem = "no CUDA device (CUDA driver version is insufficient for CUDA runtime version)";
  const auto fails = of(judged("eight-gpus", view, 8), Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NE(fails[0].message.find("0000:88:00.0: CUDA: no CUDA device (CUDA driver version is "
                                  "insufficient"),
            std::string::npos)
      << fails[0].message;
}

TEST(NodeHardware, AProfilePromisingGpusOnANodeWithNoneFailsNeverWaives) {
  const auto findings = judged("../../fabric/sysfs/counters-before", GpuDriverView{}, 8);
  const auto fails = of(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].message,
            "8 NVIDIA GPUs expected (profile h100-sxm-8 [node] gpus), 0 on the PCI bus of this "
            "node");
  EXPECT_TRUE(of(findings, Severity::waived).empty());
}

TEST(NodeHardware, ARecordedTreeComparesOnlyItsDrivers) {
  GpuDriverView view;
  view.asked = false;  // --sysfs-root: this process's NVML is not that node's
  view.nvml_problem = "NVML: libnvidia-ml.so.1 not found";
  EXPECT_TRUE(of(judged("eight-gpus", view, 8), Severity::fail).empty());
  EXPECT_EQ(of(judged("no-driver", view, 8), Severity::fail).size(), 1u);
}

TEST(NodeHardware, NvmeCountAndModel) {
  Profile profile;
  profile.name = "site";
  profile.node = {{"nvme", "4"}, {"nvme_model", "PM1743"}, {"gpus", "8"}};
  profile.node_lines = {{"nvme", 7}, {"nvme_model", 8}, {"gpus", 6}};
  const NodeHardwareExpectation expected = node_hardware_expected(profile);
  const auto hardware =
      compare_node_hardware(read_pci_devices(kPci + "eight-gpus"), view_of(nvml_gpus()));
  const auto fails =
      of(judge_node_hardware(node_hardware_measurements(hardware, kPreflightProbe), expected),
         Severity::fail);
  ASSERT_EQ(fails.size(), 2u);
  EXPECT_EQ(fails[0].message,
            "4 NVMe controllers expected (profile site [node] nvme), 2 on the PCI bus of this "
            "node");
  EXPECT_NE(fails[1].message.find("0000:0a:00.0 \"SAMSUNG MZWLR3T8HBLS-00007\""),
            std::string::npos)
      << fails[1].message;
}

TEST(NodeHardware, BadCountsAreConfigErrorsNamingTheLine) {
  Profile profile;
  profile.name = "site";
  profile.path = "site.toml";
  profile.node = {{"gpus", "7.5"}};
  profile.node_lines = {{"gpus", 12}};
  try {
    node_hardware_expected(profile);
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("site.toml:12"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("[node] gpus = \"7.5\""), std::string::npos);
  }
}

// Through node.preflight in a whole run: the no-driver node's run FAILs, exit 1.
TEST(NodeHardwareRun, PreflightOnTheNoDriverBusFailsTheRun) {
  testing::TempDir dir;
  static NvmlSession broken;
  broken.reason = "NVML: libnvidia-ml.so.1 not found (driver not present)";
  auto probe = make_preflight_probe([]() -> const NvmlSession& { return broken; });
  RunRequest request;
  request.probes.push_back(probe.get());
  Judge judge;
  judge.name = "node_hardware";
  judge.judge = [](const std::vector<Measurement>& m, const Profile& p) {
    return judge_node_hardware(m, node_hardware_expected(p));
  };
  request.judges.push_back(judge);
  request.profile.name = "h100-sxm-8";
  request.profile.node = {{"gpus", "8"}};
  request.profile.node_lines = {{"gpus", 10}};
  request.options.sysfs_root = kPci + "no-driver";
  request.out_dir = dir.path() / "run";
  request.versions = nlohmann::json::object();
  Runner runner(std::move(request));
  auto world = make_single_world();
  EXPECT_EQ(runner.execute(*world), 1);
}

}  // namespace
}  // namespace fabcheck
