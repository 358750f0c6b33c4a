// The shared text helpers: trimming, lower case whatever the locale, joining lists, and UTC stamps
// of a given time (bench/sys/timer.hpp).
#include "bench/sys/text_scan.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

TEST(TextScan, TrimDropsWhiteSpaceAroundOnly) {
  EXPECT_EQ(text::trim(" \t fatal, x \r\n"), "fatal, x");
  EXPECT_EQ(text::trim("   "), "");
  EXPECT_EQ(text::trim("a b"), "a b");
}

TEST(TextScan, LowerChangesAsciiLettersOnly) {
  EXPECT_EQ(text::lower("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(text::lower("Non-Fatal"), "non-fatal");
  EXPECT_EQ(text::lower("AZ@[az09"), "az@[az09");  // the letters' ends, and what is next to them
  EXPECT_EQ(text::lower("\xC3\x89t\xC3\xA9"), "\xC3\x89t\xC3\xA9");  // UTF-8 "Été": bytes kept
}

TEST(TextScan, EqualIgnoringCase) {
  EXPECT_TRUE(text::equal_ignoring_case("Socket", "socket"));
  EXPECT_TRUE(text::equal_ignoring_case("IB", "ib"));
  EXPECT_TRUE(text::equal_ignoring_case("", ""));
  EXPECT_FALSE(text::equal_ignoring_case("IB", "IBext"));
  EXPECT_FALSE(text::equal_ignoring_case("any", "anx"));
}

TEST(TextScan, JoinPutsTheSeparatorBetweenItems) {
  EXPECT_EQ(text::join(std::vector<std::string>{}, ", "), "");
  EXPECT_EQ(text::join(std::vector<std::string>{"IB"}, ", "), "IB");
  EXPECT_EQ(text::join(std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2"}, ","),
            "mlx5_0,mlx5_1,mlx5_2");
  EXPECT_EQ(text::join(std::set<std::string>{"b", "a"}, " or "), "a or b");
  // Empty items keep their place: "a,,b" says a value was missing.
  EXPECT_EQ(text::join(std::vector<std::string>{"a", "", "b"}, ","), "a,,b");
}

TEST(TextScan, JoinWritesEachItemAsAsked) {
  const std::vector<int> channels{0, 2, 15};
  EXPECT_EQ(text::join(channels, ",", [](int c) { return std::to_string(c); }), "0,2,15");
  EXPECT_EQ(text::join(std::vector<int>{}, ",", [](int c) { return std::to_string(c); }), "");
}

TEST(TextScan, JoinNonEmptySkipsMissingItems) {
  EXPECT_EQ(text::join_non_empty({"", "node-a: line 3", "", "node-b: line 9"}, "\n"),
            "node-a: line 3\nnode-b: line 9");
  EXPECT_EQ(text::join_non_empty({"", ""}, "\n"), "");
}

TEST(Timer, UtcTimestampOfAGivenTime) {
  EXPECT_EQ(utc_timestamp(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(utc_timestamp(1709600461), "2024-03-05T01:01:01Z");
  EXPECT_EQ(utc_timestamp().size(), std::string("2026-11-30T06:09:26Z").size());
}

TEST(TextSplit, PiecesBetweenSeparatorsEmptyOnesKept) {
  using Pieces = std::vector<std::string_view>;
  EXPECT_EQ(text::split("l0,s0,l1", ','), Pieces({"l0", "s0", "l1"}));
  EXPECT_EQ(text::split("a,,b", ','), Pieces({"a", "", "b"}));
  EXPECT_EQ(text::split(",a,", ','), Pieces({"", "a", ""}));
  EXPECT_EQ(text::split("", ','), Pieces({""}));
  EXPECT_EQ(text::split("one", ','), Pieces({"one"}));
}

}  // namespace
}  // namespace fabcheck
