// Every profile shipped in results/profiles loads against the whole registry (every family's
// metrics and [node] keys, every judge's checks), with a source for every figure.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/cli/cli_support.hpp"
#include "bench/cli/probe_families.hpp"
#include "results/config_error.hpp"

namespace fabcheck {
namespace {

TEST(ShippedProfiles, EveryProfileLoadsAgainstTheWholeRegistry) {
  Registry registry;
  register_all_probes(registry);
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(FABCHECK_SOURCE_DIR) / "results/profiles")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    Profile profile;
    ASSERT_NO_THROW(profile = registry.load_profile(entry.path()));
    EXPECT_EQ(profile.name, entry.path().stem().string());
    for (const Expectation& e : profile.expectations) EXPECT_FALSE(e.source.empty()) << e.line;
    ++loaded;
  }
  EXPECT_GE(loaded, 5);
}

TEST(ShippedProfiles, GpuNodeProfilesExpectTheirFabric) {
  Registry registry;
  register_all_probes(registry);
  const Profile h100 = load_profile_for("h100-sxm-8", registry, nullptr);
  EXPECT_EQ(h100.node.at("gpu_pcie"), "5x16");
  EXPECT_EQ(h100.node.at("ib_ports"), "8");
  const Profile a100 = load_profile_for("a100-sxm-8", registry, nullptr);
  EXPECT_EQ(a100.node.at("ib_rate_gbps"), "200");
}

TEST(ShippedProfiles, AutoOnANodeWithoutGpusIsGenericCpuAndSaysWhy) {
  Registry registry;
  register_all_probes(registry);
  std::string why;
  const Profile chosen = load_profile_for("auto", registry, &why);
  if (why.find("NVML") == std::string::npos || why.find("generic-cpu") == std::string::npos) {
    GTEST_SKIP() << "this node has GPUs: " << why;
  }
  EXPECT_EQ(chosen.name, "generic-cpu");
}

TEST(ShippedProfiles, UnknownNameListsTheShippedOnes) {
  Registry registry;
  register_all_probes(registry);
  try {
    load_profile_for("h900", registry, nullptr);
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("h100-sxm-8"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fabcheck
