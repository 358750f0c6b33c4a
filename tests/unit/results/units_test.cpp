// Tests of parse_byte_size and format_bytes: every accepted spelling and every rejected form.
#include "results/units.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

TEST(ParseByteSize, PlainNumbersAreBytes) {
  EXPECT_EQ(parse_byte_size("8"), 8u);
  EXPECT_EQ(parse_byte_size("0"), 0u);
  EXPECT_EQ(parse_byte_size("8B"), 8u);
  EXPECT_EQ(parse_byte_size("1000"), 1000u);
}

TEST(ParseByteSize, BinaryMultiplesInEverySpelling) {
  EXPECT_EQ(parse_byte_size("4K"), 4096u);
  EXPECT_EQ(parse_byte_size("4k"), 4096u);
  EXPECT_EQ(parse_byte_size("4KB"), 4096u);
  EXPECT_EQ(parse_byte_size("4KiB"), 4096u);
  EXPECT_EQ(parse_byte_size("256M"), 268435456u);
  EXPECT_EQ(parse_byte_size("256MiB"), 268435456u);
  EXPECT_EQ(parse_byte_size("1G"), 1073741824u);
  EXPECT_EQ(parse_byte_size("1g"), 1073741824u);
  EXPECT_EQ(parse_byte_size("2T"), 2199023255552u);
  EXPECT_EQ(parse_byte_size("1P"), 1125899906842624u);
}

TEST(ParseByteSize, LargestValuesAndOverflow) {
  EXPECT_EQ(parse_byte_size("18446744073709551615"), 18446744073709551615u);
  EXPECT_EQ(parse_byte_size("18446744073709551616"), std::nullopt);  // 2^64
  EXPECT_EQ(parse_byte_size("15E"), 15u * (1ull << 60));
  EXPECT_EQ(parse_byte_size("16E"), std::nullopt);  // 2^64
  EXPECT_EQ(parse_byte_size("99999999999T"), std::nullopt);
}

TEST(ParseByteSize, RejectsEverythingElse) {
  for (const char* bad : {"", "-1", "-4K", "+4K", "1.5G", ".5", "0.5K", "K", "4X", "4KK", "4Kx",
                          "4 K", " 4", "4 ", "4iB", "four", "4K:8K", "0x10", "4KIB "}) {
    EXPECT_EQ(parse_byte_size(bad), std::nullopt) << "\"" << bad << "\"";
  }
}

TEST(FormatBytes, ExactMultiplesHaveNoFraction) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(8), "8B");
  EXPECT_EQ(format_bytes(1000), "1000B");
  EXPECT_EQ(format_bytes(1023), "1023B");
  EXPECT_EQ(format_bytes(1024), "1KiB");
  EXPECT_EQ(format_bytes(4096), "4KiB");
  EXPECT_EQ(format_bytes(268435456), "256MiB");
  EXPECT_EQ(format_bytes(1073741824), "1GiB");
  EXPECT_EQ(format_bytes(2199023255552), "2TiB");
}

TEST(FormatBytes, OtherValuesHaveAtMostTwoDecimals) {
  EXPECT_EQ(format_bytes(1610612736), "1.5GiB");
  EXPECT_EQ(format_bytes(1536), "1.5KiB");
  EXPECT_EQ(format_bytes(1280), "1.25KiB");
  EXPECT_EQ(format_bytes(1025), "1KiB") << "1.0009765625 KiB rounds to two decimals";
  EXPECT_EQ(format_bytes(1100), "1.07KiB");
  EXPECT_EQ(format_bytes(1048576 + 524288 + 1), "1.5MiB");
}

TEST(FormatBytes, RoundTripsThroughParse) {
  for (const char* text : {"8", "4K", "256M", "1G", "2T"}) {
    const auto bytes = parse_byte_size(text);
    ASSERT_TRUE(bytes.has_value()) << text;
    EXPECT_EQ(parse_byte_size(format_bytes(*bytes)), bytes) << text;
  }
}

}  // namespace
}  // namespace fabcheck
