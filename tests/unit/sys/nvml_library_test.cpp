// NVML loading on a node with no or a broken driver: a clear reason, never a crash.
#include <gtest/gtest.h>

#include "bench/sys/nvml_library.hpp"
#include "tests/doubles/fake_nvml.hpp"

namespace fabcheck {
namespace {

TEST(NvmlLibrary, MissingLibraryMeansDriverNotPresent) {
  const NvmlSession session = load_nvml("/nonexistent/driver/libnvidia-ml.so.1");
  EXPECT_FALSE(session.ok());
  EXPECT_EQ(session.reason, "NVML: libnvidia-ml.so.1 not found (driver not present)");
  EXPECT_EQ(session.device_count, 0u);
}

TEST(NvmlLibrary, ThisMachineSaysWhyOrCountsGpus) {
  const NvmlSession& session = process_nvml();
  if (session.ok()) {
    // A machine with the driver (the device check): it counts its GPUs.
    EXPECT_GT(session.device_count, 0u);
    return;
  }
  // A CI machine without the driver: the reason, exactly as `fabcheck list` prints it.
  EXPECT_EQ(session.reason, "NVML: libnvidia-ml.so.1 not found (driver not present)");
}

TEST(NvmlLibrary, ALibraryWithoutNvmlSymbolsIsNamed) {
  const NvmlSession session = load_nvml("libm.so.6");
  EXPECT_FALSE(session.ok());
  EXPECT_EQ(session.reason, "NVML: libm.so.6 lacks nvmlInit_v2 (driver too old)");
}

TEST(NvmlLibrary, InitFailureGivesNvmlsOwnError) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(2);
  const NvmlSession session =
      start_nvml(testing::make_fake_nvml(gpus, NVML_ERROR_DRIVER_NOT_LOADED));
  EXPECT_FALSE(session.ok());
  EXPECT_EQ(session.reason,
            "NVML: nvmlInit failed: Driver Not Loaded (driver broken or not loaded)");
}

TEST(NvmlLibrary, StartedSessionCountsDevicesAndReadsDriverVersion) {
  auto gpus = std::make_shared<std::vector<testing::FakeGpu>>(8);
  const NvmlSession session = start_nvml(testing::make_fake_nvml(gpus));
  ASSERT_TRUE(session.ok()) << session.reason;
  EXPECT_EQ(session.device_count, 8u);
  EXPECT_EQ(session.driver_version, "570.124.06");
  EXPECT_TRUE(session.reason.empty());
}

TEST(NvmlLibrary, ErrorTextFallsBackToTheCode) {
  NvmlFunctions bare;
  EXPECT_EQ(nvml_error_text(bare, NVML_ERROR_GPU_IS_LOST), "NVML error 15");
}

}  // namespace
}  // namespace fabcheck
