// A profile's [sdc] table as the registry loads it: each key is the option sdc.<key> of the SDC
// screens, held to that option's rule with the file and line named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "bench/sys/config_error.hpp"
#include "results/profile.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/synthetic/every_probe_registry.hpp"

namespace fabcheck {
namespace {

std::filesystem::path write_profile(const testing::TempDir& dir, const std::string& sdc) {
  const auto path = dir.path() / "site.toml";
  std::ofstream(path) << "[profile]\nname = \"site\"\n\n[sdc]\n" << sdc;
  return path;
}

TEST(SdcProfile, EveryKeyOfTheTableIsAnOptionOfTheScreens) {
  const Registry& registry = synthetic::every_probe_registry();
  for (const char* key : kSdcProfileKeys) {
    bool declared = false;
    for (Probe* probe : registry.all()) {
      for (const OptionSpec& spec : probe->info().options) {
        declared = declared || spec.key == std::string("sdc.") + key;
      }
    }
    EXPECT_TRUE(declared) << key;
  }
}

TEST(SdcProfile, AValueOutsideItsOptionsRuleNamesFileLineAndValue) {
  const Registry& registry = synthetic::every_probe_registry();
  testing::TempDir dir;
  EXPECT_EQ(registry.load_profile(write_profile(dir, "duration_s = 60\nrepeats = 2\n")).sdc.size(),
            2u);
  const auto bad = write_profile(dir, "repeats = 2\nmemory_fraction = 1.5\n");
  try {
    registry.load_profile(bad);
    FAIL() << "loaded";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(),
                ::testing::StartsWith(bad.string() + ":6 [sdc] sdc.memory_fraction=1.5: "));
  }
}

}  // namespace
}  // namespace fabcheck
