// --profile auto: the profile from the GPU model and count, with the reason printed at start.
#include <gtest/gtest.h>

#include "kernels/profile_choice.hpp"

namespace fabcheck {
namespace {

std::vector<std::string> eight(const std::string& model) {
  return std::vector<std::string>(8, model);
}

TEST(ProfileChoice, EightSxmGpusOfAKnownModel) {
  const auto h200 = choose_profile_for_gpus(eight("NVIDIA H200"), "");
  EXPECT_EQ(h200.name, "h200-sxm-8");
  EXPECT_EQ(h200.reason, "8 x NVIDIA H200 detected by NVML -> h200-sxm-8");
  EXPECT_EQ(choose_profile_for_gpus(eight("NVIDIA H100 80GB HBM3"), "").name, "h100-sxm-8");
  EXPECT_EQ(choose_profile_for_gpus(eight("NVIDIA A100-SXM4-80GB"), "").name, "a100-sxm-8");
  EXPECT_EQ(choose_profile_for_gpus(eight("NVIDIA A100-SXM4-40GB"), "").name, "a100-sxm-8");
}

TEST(ProfileChoice, NoDriverFallsBackToGenericCpuSayingWhy) {
  const auto choice =
      choose_profile_for_gpus({}, "NVML: libnvidia-ml.so.1 not found (driver not present)");
  EXPECT_EQ(choice.name, "generic-cpu");
  EXPECT_EQ(choice.reason,
            "no GPU (NVML: libnvidia-ml.so.1 not found (driver not present)) -> generic-cpu");
}

TEST(ProfileChoice, OtherBoardsCountsAndMixturesFallBack) {
  const auto pcie = choose_profile_for_gpus(eight("NVIDIA H100 PCIe"), "");
  EXPECT_EQ(pcie.name, "generic-cpu");
  EXPECT_EQ(pcie.reason,
            "8 x NVIDIA H100 PCIe detected by NVML: no profile for this model -> generic-cpu");
  EXPECT_EQ(choose_profile_for_gpus(eight("NVIDIA H100 NVL"), "").name, "generic-cpu");
  EXPECT_EQ(choose_profile_for_gpus(eight("NVIDIA A100-PCIE-40GB"), "").name, "generic-cpu");
  const auto four = choose_profile_for_gpus(std::vector<std::string>(4, "NVIDIA H200"), "");
  EXPECT_EQ(four.name, "generic-cpu");
  EXPECT_EQ(four.reason,
            "4 x NVIDIA H200 detected by NVML: h200-sxm-8 needs 8 GPUs -> generic-cpu");
  auto mixed = eight("NVIDIA H100 80GB HBM3");
  mixed[3] = "NVIDIA H200";
  EXPECT_EQ(choose_profile_for_gpus(mixed, "").name, "generic-cpu");
  EXPECT_EQ(choose_profile_for_gpus({}, "").reason, "no GPU (NVML sees none) -> generic-cpu");
}

TEST(ProfileChoice, ThisNode) {
  const ProfileChoice choice = choose_profile_for_node();
  EXPECT_FALSE(choice.name.empty());
  EXPECT_NE(choice.reason.find("-> " + choice.name), std::string::npos) << choice.reason;
}

}  // namespace
}  // namespace fabcheck
