// --profile auto: the profile from the NVIDIA GPUs on the PCI bus (device id and count), NVML only
// confirming, with the reason printed at start.
#include <gtest/gtest.h>

#include "kernels/profile_choice.hpp"

namespace fabcheck {
namespace {

std::vector<PciDevice> on_bus(std::size_t count, const std::string& device) {
  std::vector<PciDevice> gpus;
  for (std::size_t i = 0; i < count; ++i) {
    PciDevice gpu;
    gpu.bdf = "0000:" + std::to_string(18 + 2 * i) + ":00.0";
    gpu.vendor = "0x10de";
    gpu.device = device;
    gpu.class_code = "0x030200";
    gpu.driver = "nvidia";
    gpus.push_back(gpu);
  }
  return gpus;
}

std::vector<std::string> eight(const std::string& model) {
  return std::vector<std::string>(8, model);
}

TEST(ProfileChoice, EightSxmGpusOfAKnownBoard) {
  const auto h200 = choose_profile_for_bus(on_bus(8, "0x2335"), eight("NVIDIA H200"), "");
  EXPECT_EQ(h200.name, "h200-sxm-8");
  EXPECT_EQ(h200.reason,
            "8 x 10de:2335 (H200 SXM 141GB) on the PCI bus -> h200-sxm-8; NVML confirms 8 x "
            "NVIDIA H200");
  EXPECT_EQ(choose_profile_for_bus(on_bus(8, "0x2330"), {}, "").name, "h100-sxm-8");
  EXPECT_EQ(choose_profile_for_bus(on_bus(8, "0x20b2"), {}, "").name, "a100-sxm-8");
  EXPECT_EQ(choose_profile_for_bus(on_bus(8, "0x20b0"), {}, "").name, "a100-sxm-8");
}

// The node: the module is gone after a kernel update, NVML cannot load. The bus still
// shows eight H100s: the H100 profile is chosen (its [node] gpus then FAILs the run), never
// generic-cpu.
TEST(ProfileChoice, NoDriverStillChoosesFromTheBus) {
  const auto choice = choose_profile_for_bus(
      on_bus(8, "0x2330"), {}, "NVML: libnvidia-ml.so.1 not found (driver not present)");
  EXPECT_EQ(choice.name, "h100-sxm-8");
  EXPECT_EQ(choice.reason,
            "8 x 10de:2330 (H100 SXM5 80GB) on the PCI bus -> h100-sxm-8; NVML cannot confirm "
            "(NVML: libnvidia-ml.so.1 not found (driver not present))");
}

TEST(ProfileChoice, FewerOnTheBusOrSeenByNvmlKeepsTheFamily) {
  const auto seven = choose_profile_for_bus(on_bus(7, "0x2330"), {}, "");
  EXPECT_EQ(seven.name, "h100-sxm-8");
  EXPECT_NE(seven.reason.find("7 x 10de:2330"), std::string::npos) << seven.reason;
  EXPECT_NE(seven.reason.find("[node] gpus judges it"), std::string::npos) << seven.reason;
  std::vector<std::string> models = eight("NVIDIA H100 80GB HBM3");
  models.pop_back();
  const auto nvml_seven = choose_profile_for_bus(on_bus(8, "0x2330"), models, "");
  EXPECT_EQ(nvml_seven.name, "h100-sxm-8");
  EXPECT_NE(nvml_seven.reason.find("NVML sees only 7 of them"), std::string::npos)
      << nvml_seven.reason;
}

TEST(ProfileChoice, OtherBoardsAndMixturesHaveNoProfile) {
  const auto pcie = choose_profile_for_bus(on_bus(8, "0x2331"), {}, "");
  EXPECT_EQ(pcie.name, "");
  EXPECT_EQ(pcie.reason,
            "8 x 10de:2331 (H100 PCIe) on the PCI bus: no shipped profile for this board (NVML "
            "sees none of them)");
  EXPECT_EQ(choose_profile_for_bus(on_bus(8, "0x2321"), {}, "").name, "");
  EXPECT_EQ(choose_profile_for_bus(on_bus(2, "0x2684"), {}, "").name, "");
  auto mixed = on_bus(8, "0x2330");
  mixed[3].device = "0x2335";
  EXPECT_EQ(choose_profile_for_bus(mixed, {}, "").name, "");
}

TEST(ProfileChoice, NoGpuOnTheBusIsGenericCpu) {
  const auto none = choose_profile_for_bus({}, {}, "NVML: libnvidia-ml.so.1 not found");
  EXPECT_EQ(none.name, "generic-cpu");
  EXPECT_EQ(none.reason, "no NVIDIA GPU on the PCI bus -> generic-cpu");
}

TEST(ProfileChoice, ChosenFromARecordedBus) {
  const std::string tree = std::string(FABCHECK_FIXTURES_DIR) + "/fabric/sysfs/healthy";
  const ProfileChoice choice = choose_profile_for_node(tree);
  EXPECT_EQ(choice.name, "h100-sxm-8");
  EXPECT_EQ(choice.reason.rfind("8 x 10de:2330 (H100 SXM5 80GB) on the PCI bus -> h100-sxm-8", 0),
            0u)
      << choice.reason;
}

}  // namespace
}  // namespace fabcheck
