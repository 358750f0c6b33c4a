// Reading telemetry through a recorded NVML node: values, units, unknowns, own vs foreign memory.
#include <gtest/gtest.h>

#include "bench/sys/nvml_reader.hpp"
#include "tests/doubles/fake_nvml.hpp"

#include <set>

namespace fabcheck {
namespace {

constexpr unsigned kOwnPid = 4242;

std::shared_ptr<std::vector<testing::FakeGpu>> two_gpus() {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(2);
  (*gpus)[1].bus_id = "00000000:5D:00.0";
  (*gpus)[1].name = "NVIDIA H100 80GB HBM3";
  return gpus;
}

TEST(NvmlReader, ReadsEveryFigureInFabchecksUnits) {
  auto gpus = two_gpus();
  auto& gpu = (*gpus)[1];
  gpu.temperature = 87;
  gpu.sm_clock = 1755;
  gpu.power_mw = 612500;
  gpu.reasons = 0x60;
  gpu.ecc_uncorrected = 2;
  gpu.gen = 4;
  gpu.nvlinks[7] = false;
  const GpuTelemetry t =
      read_gpu_telemetry(*testing::make_fake_nvml(gpus), 1, TelemetryPhase::load, {kOwnPid});
  EXPECT_EQ(t.index, 1);
  EXPECT_EQ(t.bus_id, "0000:5d:00.0");
  EXPECT_EQ(t.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.uuid, "GPU-00000000-1111-2222-3333-444444444444");
  EXPECT_EQ(t.phase, TelemetryPhase::load);
  EXPECT_EQ(t.temperature_c, 87.0);
  EXPECT_EQ(t.sm_clock_mhz, 1755.0);
  EXPECT_EQ(t.sm_clock_max_mhz, 1980.0);
  EXPECT_EQ(t.mem_clock_mhz, 2619.0);
  EXPECT_DOUBLE_EQ(*t.power_w, 612.5);
  EXPECT_DOUBLE_EQ(*t.power_limit_w, 700.0);
  EXPECT_EQ(t.clock_event_reasons, 0x60u);
  EXPECT_EQ(t.ecc_uncorrected_volatile, 2.0);
  EXPECT_EQ(t.ecc_corrected_volatile, 0.0);
  EXPECT_EQ(t.retired_pages_pending, false);
  EXPECT_EQ(t.remapped_rows_pending, false);
  EXPECT_EQ(t.pcie_gen, 4);
  EXPECT_EQ(t.pcie_gen_max, 5);
  EXPECT_EQ(t.pcie_width, 16);
  EXPECT_EQ(t.nvlink_links, 18);
  EXPECT_EQ(t.nvlink_inactive, std::vector<int>{7});
  EXPECT_DOUBLE_EQ(*t.memory_total_gb, 85.52);
  EXPECT_DOUBLE_EQ(*t.memory_used_gb, 0.56);
  EXPECT_EQ(t.foreign_memory_gb, 0.0);
}

TEST(NvmlReader, MemoryOfOtherProcessesIsForeignOursIsNot) {
  auto gpus = two_gpus();
  (*gpus)[0].processes = {{kOwnPid, 2000000000ULL}, {48211, 30000000000ULL}, {5127, 1200000000ULL}};
  const GpuTelemetry t =
      read_gpu_telemetry(*testing::make_fake_nvml(gpus), 0, TelemetryPhase::idle, {kOwnPid});
  EXPECT_DOUBLE_EQ(*t.foreign_memory_gb, 31.2);
  EXPECT_EQ(t.foreign_pids, "48211:30.0GB,5127:1.2GB");
}

// Defect 8: the other ranks of this run hold contexts on their GPUs; their pids (every rank's,
// under every pid it has) are this run's, not foreign. A pid that does not exist in this pid
// namespace (NVML reports host pids inside a container) is marked so.
TEST(NvmlReader, EveryRankOfTheRunIsOwnAndAPidFromAnotherNamespaceIsMarked) {
  auto gpus = two_gpus();
  (*gpus)[0].processes = {{kOwnPid, 600000000ULL},
                          {kOwnPid + 1, 600000000ULL},
                          {901234, 600000000ULL},
                          {48211, 30000000000ULL}};
  const std::set<unsigned> run{kOwnPid, kOwnPid + 1, 901234};
  const GpuTelemetry t = read_gpu_telemetry(*testing::make_fake_nvml(gpus), 0, TelemetryPhase::idle,
                                            run, [](unsigned pid) { return pid != 48211; });
  EXPECT_DOUBLE_EQ(*t.foreign_memory_gb, 30.0);
  EXPECT_EQ(t.foreign_pids, "48211(other pid namespace):30.0GB");
}

TEST(NvmlReader, ManyProcessesAreReadAfterAskingForRoom) {
  auto gpus = two_gpus();
  for (unsigned pid = 1; pid <= 100; ++pid) (*gpus)[0].processes.push_back({pid, 100000000ULL});
  const GpuTelemetry t =
      read_gpu_telemetry(*testing::make_fake_nvml(gpus), 0, TelemetryPhase::idle, {kOwnPid});
  ASSERT_TRUE(t.foreign_memory_gb);
  EXPECT_NEAR(*t.foreign_memory_gb, 10.0, 1e-9);
}

TEST(NvmlReader, UnsupportedFiguresStayUnknown) {
  auto gpus = two_gpus();
  (*gpus)[0].temperature_supported = false;
  (*gpus)[0].remap_supported = false;
  const GpuTelemetry t =
      read_gpu_telemetry(*testing::make_fake_nvml(gpus), 0, TelemetryPhase::idle, {kOwnPid});
  EXPECT_FALSE(t.temperature_c);
  EXPECT_FALSE(t.remapped_rows_pending);
  EXPECT_FALSE(t.row_remap_failure);
  EXPECT_TRUE(t.sm_clock_mhz);
}

TEST(NvmlReader, EntryPointsAnOldDriverLacksLeaveFiguresUnknown) {
  auto gpus = two_gpus();
  auto api = testing::make_fake_nvml(gpus);
  api->remapped_rows = nullptr;
  api->nvlink_state = nullptr;
  api->compute_processes = nullptr;
  const GpuTelemetry t = read_gpu_telemetry(*api, 0, TelemetryPhase::idle, {kOwnPid});
  EXPECT_FALSE(t.remapped_rows_pending);
  EXPECT_FALSE(t.nvlink_links);
  EXPECT_FALSE(t.foreign_memory_gb);
}

TEST(NvmlReader, ALostGpuThrowsWithNvmlsWords) {
  auto gpus = two_gpus();
  (*gpus)[1].lost = true;
  try {
    read_gpu_telemetry(*testing::make_fake_nvml(gpus), 1, TelemetryPhase::idle, {kOwnPid});
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "NVML: cannot open GPU 1: GPU is lost");
  }
}

TEST(NvmlReader, IdentitiesSkipGpusThatCannotBeOpened) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(3);
  (*gpus)[1].lost = true;
  (*gpus)[2].bus_id = "00000000:DB:00.0";
  const auto devices = read_nvml_identities(*testing::make_fake_nvml(gpus), 3);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].index, 0);
  EXPECT_EQ(devices[1].index, 2);
  EXPECT_EQ(devices[1].bus_id, "0000:db:00.0");
}

}  // namespace
}  // namespace fabcheck
