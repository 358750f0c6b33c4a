// Tests of tier classification: [[path]] parsing and its errors, range edges, gaps, overlaps,
// divide_by, the tier finding of a figure no threshold covers, and the tier note on threshold
// findings.
#include "results/tiers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"
#include "results/evaluator.hpp"
#include "test_catalog.hpp"

namespace fabcheck {
namespace {

using ::testing::HasSubstr;
using testing::test_catalog;

// Inter-node per NIC, as a node-pair all-reduce busbw over 8 NICs (figures from expected-tiers.md).
const char* kPathProfile = R"(
[profile]
name = "t"

[[path]]
name = "inter_node"
figures = ["coll.all_reduce/busbw"]
unit = "GB/s"
sizes = "64M:16G"
divide_by = 8
per = "NIC"
expect = "ib-ndr"
[[path.tier]]
name = "ib-ndr"
min = 40
max = 50
source = "nccl-tests issues 290, 267: 46-48 GB/s per NDR NIC"
[[path.tier]]
name = "ib-hdr"
min = 20
max = 25
source = "nccl-tests issue 119: ~24 GB/s per HDR NIC"
[[path.tier]]
name = "ib-edr"
min = 10
max = 12.5
source = "nccl-tests issue 119: ~12 GB/s per EDR NIC"
[[path.tier]]
name = "tcp-socket"
min = 0
max = 12.5
source = "100 GbE line rate 12.5 GB/s; TCP reaches less"
)";

Profile path_profile() { return parse_profile(kPathProfile, "t.toml", test_catalog()); }

Measurement busbw(double value, std::uint64_t size = 1 << 30) {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = value;
  m.unit = "GB/s";
  m.host = "node07";
  m.subject = "world";
  m.size_bytes = size;
  return m;
}

TEST(Tiers, ParsedWithSources) {
  const Profile profile = path_profile();
  ASSERT_EQ(profile.paths.size(), 1u);
  const TierPath& path = profile.paths[0];
  EXPECT_EQ(path.name, "inter_node");
  EXPECT_EQ(path.figures.size(), 1u);
  EXPECT_EQ(path.divide_by, 8);
  EXPECT_EQ(path.expect, "ib-ndr");
  ASSERT_EQ(path.tiers.size(), 4u);
  EXPECT_EQ(path.tiers[1].name, "ib-hdr");
  EXPECT_THAT(path.tiers[1].source, HasSubstr("issue 119"));
}

TEST(Tiers, EdgesAreInclusive) {
  const Profile profile = path_profile();
  const TierPath& path = profile.paths[0];
  EXPECT_EQ(classify_tier(path, 40 * 8).describe(), "ib-ndr");
  EXPECT_EQ(classify_tier(path, 50 * 8).describe(), "ib-ndr");
  EXPECT_EQ(classify_tier(path, 20 * 8).describe(), "ib-hdr");
  EXPECT_EQ(classify_tier(path, 39.99 * 8).describe(), "no tier (between ib-hdr and ib-ndr)");
}

TEST(Tiers, GapsOverlapsAndOutside) {
  const Profile profile = path_profile();
  const TierPath& path = profile.paths[0];
  EXPECT_EQ(classify_tier(path, 30 * 8).describe(), "no tier (between ib-hdr and ib-ndr)");
  EXPECT_EQ(classify_tier(path, 60 * 8).describe(), "no tier (above every tier)");
  EXPECT_EQ(classify_tier(path, 12 * 8).describe(), "ib-edr or tcp-socket");
  EXPECT_EQ(classify_tier(path, 5 * 8).describe(), "tcp-socket");
  EXPECT_EQ(classify_tier(path, -1).describe(), "no tier (below every tier)");
}

TEST(Tiers, JudgedAgainstTheExpectedTier) {
  const Profile profile = path_profile();
  const TierPath& path = profile.paths[0];
  EXPECT_FALSE(judge_tier(path, classify_tier(path, 47 * 8), "ib-ndr").below_expected);
  EXPECT_FALSE(judge_tier(path, classify_tier(path, 60 * 8), "ib-ndr").below_expected);
  const TierVerdict socket = judge_tier(path, classify_tier(path, 12.1 * 8), "ib-ndr");
  EXPECT_TRUE(socket.below_expected);
  EXPECT_EQ(socket.text, "matches ib-edr or tcp-socket, expected ib-ndr");
  EXPECT_TRUE(judge_tier(path, classify_tier(path, 30 * 8), "ib-ndr").below_expected);
  // HDR nodes: NDR figures are better than expected, not a failure.
  EXPECT_FALSE(judge_tier(path, classify_tier(path, 47 * 8), "ib-hdr").below_expected);
}

TEST(Tiers, FigureWithoutThresholdGetsATierFinding) {
  const Profile profile = path_profile();
  auto slow = evaluate_measurement(busbw(12.1 * 8), profile);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].severity, Severity::fail);
  EXPECT_THAT(
      slow[0].message,
      HasSubstr("96.8 GB/s 12.1 GB/s per NIC matches ib-edr or tcp-socket, expected ib-ndr"));
  EXPECT_THAT(slow[0].source, HasSubstr("tier ib-ndr of [[path]] inter_node"));
  EXPECT_EQ(*slow[0].expected, 320);
  auto good = evaluate_measurement(busbw(47 * 8), profile);
  ASSERT_EQ(good.size(), 1u);
  EXPECT_EQ(good[0].severity, Severity::pass);
  EXPECT_THAT(good[0].message, HasSubstr("matches ib-ndr, expected ib-ndr"));
  // Below the path's sizes no tier is reachable: not judged.
  EXPECT_TRUE(evaluate_measurement(busbw(1, 4096), profile).empty());
}

TEST(Tiers, ThresholdFindingsNameTheTier) {
  Profile profile = path_profile();
  Expectation e;
  e.probe = "coll.all_reduce";
  e.metric = "busbw";
  e.unit = "GB/s";
  e.pass = 360;
  e.warn = 320;
  e.source = "s";
  profile.expectations.push_back(e);
  auto findings = evaluate_measurement(busbw(100), profile);
  ASSERT_EQ(findings.size(), 1u);  // the threshold speaks; the tier rides along
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_THAT(findings[0].message,
              HasSubstr("(12.5 GB/s per NIC: matches ib-edr or tcp-socket, expected ib-ndr)"));
}

std::string error_of(const std::string& text) {
  try {
    parse_profile(text, "t.toml", test_catalog());
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(Tiers, MalformedPathsNameFileAndLine) {
  const std::string head = "[[path]]\nname = \"p\"\nunit = \"GB/s\"\n";
  const std::string tier = "[[path.tier]]\nname = \"a\"\nmin = 1\nmax = 2\nsource = \"s\"\n";
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/busbwx\"]\n" + tier),
              HasSubstr("t.toml:4: unknown metric \"busbwx\""));
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/time_us\"]\n" + tier),
              HasSubstr("t.toml:4: unit \"GB/s\" does not match"));
  EXPECT_THAT(error_of(head + "figures = [\"busbw\"]\n" + tier),
              HasSubstr("t.toml:4: figure \"busbw\" is not \"probe/metric\""));
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/busbw\"]\nexpect = \"b\"\n" + tier),
              HasSubstr("t.toml:5: expect = \"b\" names no tier of [[path]] \"p\" (its tiers: a)"));
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/busbw\"]\n" +
                       "[[path.tier]]\nname = \"a\"\nmin = 3\nmax = 2\nsource = \"s\"\n"),
              HasSubstr("t.toml:8: tier \"a\": max is below min"));
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/busbw\"]\n" +
                       "[[path.tier]]\nname = \"a\"\nmin = 1\nmax = 2\n"),
              HasSubstr("t.toml:5: [[path.tier]] is missing required key \"source\""));
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/busbw\"]\nspeed = 1\n" + tier),
              HasSubstr("t.toml:5: unknown key \"speed\" in [[path]]"));
  EXPECT_THAT(error_of(head + "figures = [\"coll.all_reduce/busbw\"]\n" + tier + tier),
              HasSubstr("tier \"a\" is listed twice"));
}

}  // namespace
}  // namespace fabcheck
