// no_cuda_device_reason: each way a node has no CUDA device named for what is missing (no driver
// library, a driver older than the CUDA built with, a driver library without its kernel module).
#include <gtest/gtest.h>

#include "bench/cuda/cuda_absence.hpp"

namespace fabcheck {
namespace {

CudaDriverFacts insufficient(bool libcuda, int driver_cuda, std::string driver_version = "") {
  CudaDriverFacts facts;
  facts.insufficient_driver = true;
  facts.error_text = "CUDA driver version is insufficient for CUDA runtime version";
  facts.libcuda_present = libcuda;
  facts.driver_cuda_version = driver_cuda;
  facts.runtime_cuda_version = 13000;
  facts.driver_version = std::move(driver_version);
  return facts;
}

TEST(CudaAbsence, NoDriverLibraryIsNamed) {
  EXPECT_EQ(no_cuda_device_reason(insufficient(false, 0)),
            "libcuda.so.1 not found: no NVIDIA driver");
  CudaDriverFacts no_device;
  no_device.no_device = true;
  no_device.error_text = "no CUDA-capable device is detected";
  EXPECT_EQ(no_cuda_device_reason(no_device), "libcuda.so.1 not found: no NVIDIA driver");
}

TEST(CudaAbsence, ADriverOlderThanTheRuntimeSaysBothVersions) {
  EXPECT_EQ(
      no_cuda_device_reason(insufficient(true, 12040, "550.54.15")),
      "driver 550.54.15 supports CUDA 12.4, older than the CUDA 13.0 fabcheck was built with");
  EXPECT_EQ(no_cuda_device_reason(insufficient(true, 12080)),
            "the driver supports CUDA 12.8, older than the CUDA 13.0 fabcheck was built with");
}

TEST(CudaAbsence, OtherwiseCudartsWordsWithNvmlsReason) {
  CudaDriverFacts facts;
  facts.no_device = true;
  facts.error_text = "no CUDA-capable device is detected";
  facts.libcuda_present = true;
  facts.nvml_reason = "NVML: nvmlInit failed: Driver Not Loaded (driver broken or not loaded)";
  EXPECT_EQ(no_cuda_device_reason(facts),
            "no CUDA-capable device is detected; NVML: nvmlInit failed: Driver Not Loaded (driver "
            "broken or not loaded)");
  facts.nvml_reason.clear();
  EXPECT_EQ(no_cuda_device_reason(facts), "no CUDA-capable device is detected");
  // A driver as new as the runtime that still answers "insufficient": its own words.
  EXPECT_EQ(no_cuda_device_reason(insufficient(true, 13000)),
            "CUDA driver version is insufficient for CUDA runtime version");
}

TEST(CudaAbsence, VersionText) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12040), "12.4");
}

}  // namespace
}  // namespace fabcheck
