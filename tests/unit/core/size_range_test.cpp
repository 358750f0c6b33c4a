// --sizes parsing: sweeps, single sizes, lists, and every malformed form.
#include <gtest/gtest.h>

#include "bench/core/size_range.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using Sizes = std::vector<std::uint64_t>;

TEST(SizeSweep, GeometricSweepIncludesBothEnds) {
  EXPECT_EQ(parse_size_sweep("8:64:2"), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(parse_size_sweep("1K:1M:32"), (Sizes{1024, 32768, 1048576}));
}

TEST(SizeSweep, MaxOffTheSweepIsNotAdded) {
  EXPECT_EQ(parse_size_sweep("8:100:4"), (Sizes{8, 32}));
}

TEST(SizeSweep, FullNcclTestsRangeHas26Sizes) {
  const auto sizes = parse_size_sweep("8:256M:2");
  ASSERT_EQ(sizes.size(), 26u);
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 256ull << 20);
}

TEST(SizeSweep, SingleSizeAndList) {
  EXPECT_EQ(parse_size_sweep("1M"), (Sizes{1048576}));
  EXPECT_EQ(parse_size_sweep("4M,1M,4M"), (Sizes{1048576, 4194304}));
}

TEST(SizeSweep, MalformedInputNamesTheValue) {
  struct Case {
    const char* text;
    const char* named;
  };
  for (const Case& c : {Case{"8:1X:2", "\"1X\""}, Case{"1M:8:2", "MIN 1M is above MAX 8"},
                        Case{"8:64:1", "FACTOR \"1\""}, Case{"8:64:x", "FACTOR \"x\""},
                        Case{"8:64", "MIN:MAX:FACTOR"}, Case{"0:64:2", "above 0"}, Case{"", "\"\""},
                        Case{"1M,,2M", "\"\""}, Case{"-8:64:2", "\"-8\""}}) {
    try {
      parse_size_sweep(c.text);
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find(c.named), std::string::npos)
          << c.text << ": " << error.what();
      EXPECT_NE(std::string(error.what()).find("--sizes"), std::string::npos) << error.what();
    }
  }
}

TEST(SizeSweep, ANumberWithThousandsSeparatorsIsNamedAsSuch) {
  // "1,024" too: as a list it would be 1 and 24 (a leading zero), never what was meant.
  for (const char* text : {"1,000,000", "64,000", "1,048,576,000", "1,024"}) {
    try {
      parse_size_sweep(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("a comma separates sizes"), std::string::npos)
          << text << ": " << error.what();
    }
  }
  try {
    parse_size_sweep("1,000,000");
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--sizes \"1,000,000\": a comma separates sizes (8,4K,1M); write one size without "
              "separators (1000000, or with a unit: 4K, 1M)");
  }
  // Lists of sizes stay lists: none of their parts after the first starts with 0.
  EXPECT_EQ(parse_size_sweep("1,1024"), (Sizes{1, 1024}));
  EXPECT_EQ(parse_size_sweep("8,128,512"), (Sizes{8, 128, 512}));
}

}  // namespace
}  // namespace fabcheck
