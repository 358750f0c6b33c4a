// Slurm host-list expansion against hand-written expressions in the syntax topology.conf(5) and
// SLURM_JOB_NODELIST use: ranges, lists, padding, several brackets, and the mistakes it refuses.
#include "bench/sys/slurm_hostlist.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fabcheck {
namespace {

using Names = std::vector<std::string>;

TEST(SlurmHostlist, PlainNamesAndCommas) {
  EXPECT_EQ(expand_hostlist("gpu07"), Names({"gpu07"}));
  EXPECT_EQ(expand_hostlist("a, b,c"), Names({"a", "b", "c"}));
}

TEST(SlurmHostlist, RangesAndListsInsideBrackets) {
  // topology.conf(5)'s own example.
  EXPECT_EQ(expand_hostlist("tux[0-3,12,18-20]"),
            Names({"tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19", "tux20"}));
  EXPECT_EQ(expand_hostlist("s[0-1],tux9"), Names({"s0", "s1", "tux9"}));
}

TEST(SlurmHostlist, ZeroPaddingIsKeptAsWritten) {
  EXPECT_EQ(expand_hostlist("n[08-11]"), Names({"n08", "n09", "n10", "n11"}));
  EXPECT_EQ(expand_hostlist("n[098-101]"), Names({"n098", "n099", "n100", "n101"}));
}

TEST(SlurmHostlist, SeveralBracketsMultiplyLeftToRight) {
  EXPECT_EQ(expand_hostlist("r[1-2]-n[1-2]"), Names({"r1-n1", "r1-n2", "r2-n1", "r2-n2"}));
  EXPECT_EQ(expand_hostlist("fc12ab-n[0-1]"), Names({"fc12ab-n0", "fc12ab-n1"}));
}

TEST(SlurmHostlist, MistakesAreRefusedWithThePart) {
  for (const char* bad : {"", "n[1-", "n1]", "n[3-1]", "n[a-b]", "a,,b", "n[1-2", "n[]"}) {
    EXPECT_THROW(expand_hostlist(bad), std::invalid_argument) << bad;
  }
  try {
    expand_hostlist("n[5-2]");
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("\"5-2\" runs backwards"), std::string::npos)
        << error.what();
  }
}

TEST(SlurmHostlist, AnExpressionStandingForTooManyNamesIsRefused) {
  EXPECT_THROW(expand_hostlist("n[0-99]", 50), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("r[0-9]n[0-9]", 99), std::invalid_argument);
  EXPECT_EQ(expand_hostlist("r[0-9]n[0-9]", 100).size(), 100u);
}

}  // namespace
}  // namespace fabcheck
