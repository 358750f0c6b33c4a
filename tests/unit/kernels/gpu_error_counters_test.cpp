// NVLink, PCIe replay and memory ECC counters through the NVML test double: growth on one GPU's
// link between two readings is named with the counter, the GPU and the probe it happened under; no
// growth, nothing.
#include <gtest/gtest.h>

#include "kernels/gpu_error_counters.hpp"
#include "tests/doubles/fake_nvml.hpp"

namespace fabcheck {
namespace {

TEST(GpuErrorCounters, GrowthOnOneLinkIsAFindingNamingIt) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(2);
  (*gpus)[1].bus_id = "00000000:2A:00.0";
  (*gpus)[1].nvlink_errors[{3, NVML_NVLINK_ERROR_DL_CRC_FLIT}] = 5;
  const auto api = testing::make_fake_nvml(gpus);
  const CounterReadings before = read_gpu_error_counters(*api, 2);
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before.at("gpu1").at("nvlink3.crc_flit"), 5u);
  EXPECT_EQ(before.at("gpu0").count("nvlink17.replay"), 1u);  // 18 links
  EXPECT_EQ(before.at("gpu0").count("nvlink18.replay"), 0u);

  (*gpus)[1].nvlink_errors[{3, NVML_NVLINK_ERROR_DL_CRC_FLIT}] = 17;
  (*gpus)[1].nvlink_errors[{3, NVML_NVLINK_ERROR_DL_REPLAY}] = 2;
  (*gpus)[0].pcie_replays = 4;
  auto growth = gpu_error_counter_growth(before, read_gpu_error_counters(*api, 2), 30);
  ASSERT_EQ(growth.size(), 2u);
  for (auto& m : growth) m.params["during"] = "coll.all_reduce";
  EXPECT_EQ(growth[0].subject, "gpu0");
  EXPECT_EQ(growth[0].params.at("pcie_replay"), "+4");
  EXPECT_EQ(growth[1].subject, "gpu1");
  EXPECT_EQ(growth[1].value, 14);
  EXPECT_EQ(growth[1].params.at("bus_id"), "0000:2a:00.0");
  const auto findings = judge_gpu_error_counters(growth);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[1].severity, Severity::fail);
  EXPECT_EQ(findings[1].subject, "gpu1");
  EXPECT_NE(findings[1].message.find("during coll.all_reduce"), std::string::npos)
      << findings[1].message;
  EXPECT_NE(findings[1].message.find("nvlink3.crc_flit +12"), std::string::npos);
  EXPECT_NE(findings[1].message.find("nvlink3.replay +2"), std::string::npos);

  const CounterReadings now = read_gpu_error_counters(*api, 2);
  EXPECT_TRUE(gpu_error_counter_growth(now, now, 1).empty());
}

TEST(GpuErrorCounters, ResetIsReportedNotCountedAndPcieOnlyGpusWork) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(1);
  (*gpus)[0].nvlinks.clear();  // a PCIe card
  (*gpus)[0].pcie_replays = 9;
  const auto api = testing::make_fake_nvml(gpus);
  const auto before = read_gpu_error_counters(*api, 1);
  EXPECT_EQ(before.at("gpu0").size(), 4u);  // bus id, pcie_replay, the two ECC counts
  (*gpus)[0].pcie_replays = 0;
  const auto growth = gpu_error_counter_growth(before, read_gpu_error_counters(*api, 1), 1);
  ASSERT_EQ(growth.size(), 1u);
  EXPECT_EQ(growth[0].value, 0);
  EXPECT_EQ(growth[0].params.at("pcie_replay"), "reset (9 -> 0)");
  EXPECT_TRUE(judge_gpu_error_counters(growth).empty());
}

// gpu.hbm_patterns read its words back right while the memory corrected errors: the growth of the
// ECC count during it is a FAIL naming the counter and the probe.
TEST(GpuErrorCounters, MemoryEccGrowthDuringAProbeIsNamed) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(1);
  (*gpus)[0].ecc_corrected = 3;
  const auto api = testing::make_fake_nvml(gpus);
  const auto before = read_gpu_error_counters(*api, 1);
  EXPECT_EQ(before.at("gpu0").at("ecc.volatile_corrected"), 3u);
  EXPECT_EQ(before.at("gpu0").at("ecc.volatile_uncorrected"), 0u);
  (*gpus)[0].ecc_corrected = 10;
  auto growth = gpu_error_counter_growth(before, read_gpu_error_counters(*api, 1), 20);
  ASSERT_EQ(growth.size(), 1u);
  EXPECT_EQ(growth[0].value, 7);
  EXPECT_EQ(growth[0].params.at("ecc.volatile_corrected"), "+7");
  growth[0].params["during"] = "gpu.hbm_patterns";
  const auto findings = judge_gpu_error_counters(growth);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].message.rfind("GPU error counters grew during gpu.hbm_patterns", 0), 0u)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("ecc.volatile_corrected +7"), std::string::npos);
}

}  // namespace
}  // namespace fabcheck
