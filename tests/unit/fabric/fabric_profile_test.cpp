// The fabric's [node] settings: parsed into expectations, and malformed values named with
// file:line.
#include "fabric/fabric_profile.hpp"

#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"
#include "tests/unit/fabric/node_table_profile.hpp"

namespace fabcheck {
namespace {

using testing::profile_with;

TEST(FabricProfile, NodeTableBecomesExpectations) {
  const auto expected = fabric_expectations_from(profile_with(
      {{"gpu_pcie", "5x16"}, {"nvme_pcie", "4x4"}, {"ib_ports", "8"}, {"ib_rate_gbps", "400"}}));
  EXPECT_EQ(expected.gpu.gen, 5);
  EXPECT_EQ(expected.gpu.width, 16);
  EXPECT_EQ(expected.nvme.gen, 4);
  EXPECT_EQ(expected.nvme.width, 4);
  EXPECT_EQ(expected.hca.gen, 0);
  ASSERT_TRUE(expected.ib_ports.has_value());
  EXPECT_EQ(*expected.ib_ports, 8);
  EXPECT_DOUBLE_EQ(expected.ib_rate_gbps, 400);
}

TEST(FabricProfile, NothingSetChecksNothing) {
  const auto expected = fabric_expectations_from(profile_with({}));
  EXPECT_FALSE(expected.ib_ports.has_value());
  EXPECT_EQ(expected.gpu.gen, 0);
}

TEST(FabricProfile, MalformedValuesNameFileLineAndValue) {
  struct Case {
    std::map<std::string, std::string> node;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {{{"gpu_pcie", "5y16"}},
            "p.toml:3: [node] gpu_pcie: expected GEN, xWIDTH or GENxWIDTH (e.g. 5x16), got "
            "\"5y16\""},
           {{{"ib_ports", "eight"}},
            "p.toml:3: [node] ib_ports = \"eight\": expected a number of at least 0"},
           {{{"ib_ports", "2.5"}},
            "p.toml:3: [node] ib_ports = \"2.5\": expected a whole number from 0 to 1024"},
           // Too large to convert: the check used to wrap and vanish (PASS).
           {{{"ib_ports", "4294967296"}},
            "p.toml:3: [node] ib_ports = \"4294967296\": expected a whole number from 0 to 1024"},
           {{{"ib_ports", "1e10"}},
            "p.toml:3: [node] ib_ports = \"1e10\": expected a whole number from 0 to 1024"},
           {{{"ib_rate_gbps", "-1"}},
            "p.toml:3: [node] ib_rate_gbps = \"-1\": expected a number of at least 0"}}) {
    try {
      fabric_expectations_from(profile_with(c.node));
      ADD_FAILURE() << c.message << ": accepted";
    } catch (const ConfigError& error) {
      EXPECT_EQ(std::string(error.what()), c.message);
    }
  }
}

TEST(FabricProfile, JudgeDeclaresAndValidatesItsNodeKeys) {
  const Judge judge = make_fabric_judge();
  EXPECT_TRUE(judge.settings.count("gpu_pcie"));
  EXPECT_NO_THROW(judge.validate(profile_with({{"gpu_pcie", "5x16"}})));
  EXPECT_THROW(judge.validate(profile_with({{"gpu_pcie", "x"}})), ConfigError);
}

}  // namespace
}  // namespace fabcheck
