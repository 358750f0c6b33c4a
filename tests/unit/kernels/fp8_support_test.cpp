// Which GPUs get gpu.gemm's FP8 hash: compute capability 8.9 and 9.0 on; an older GPU's waiver
// names its capability and what FP8 needs.
#include "kernels/fp8_support.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

TEST(Fp8Support, AdaHopperAndLaterHaveFp8) {
  EXPECT_EQ(fp8_waiver(8, 9), "");   // L40S, RTX 6000 Ada
  EXPECT_EQ(fp8_waiver(9, 0), "");   // H100, H200
  EXPECT_EQ(fp8_waiver(10, 0), "");  // B200
  EXPECT_EQ(fp8_waiver(12, 0), "");
}

TEST(Fp8Support, AnAmpereGpuIsWaivedWithItsCapability) {
  EXPECT_EQ(fp8_waiver(8, 0),
            "compute capability 8.0 has no FP8 tensor cores (FP8 GEMMs need 8.9 or 9.0 and "
            "later)");  // A100
  EXPECT_EQ(fp8_waiver(8, 6).rfind("compute capability 8.6 has no FP8", 0), 0u);
  EXPECT_EQ(fp8_waiver(7, 0).rfind("compute capability 7.0 has no FP8", 0), 0u);
}

TEST(Fp8Support, TheSizeIsAMultipleOf16) {
  EXPECT_EQ(fp8_gemm_size(8192), 8192);
  EXPECT_EQ(fp8_gemm_size(1000), 992);
  EXPECT_EQ(fp8_gemm_size(256), 256);
}

}  // namespace
}  // namespace fabcheck
