// Data pattern: round trip, and corruption caught at the exact byte offset.
#include "storage/data_pattern.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace fabcheck {
namespace {

std::vector<std::byte> pattern(std::size_t size, int rank, std::uint64_t offset) {
  std::vector<std::byte> buffer(size);
  fill_pattern(buffer, rank, offset);
  return buffer;
}

TEST(DataPattern, FilledBufferVerifies) {
  const auto buffer = pattern(3 * 4096 + 24, 3, 8192 - 16);  // crosses block boundaries
  EXPECT_FALSE(verify_pattern(buffer, 3, 8192 - 16).has_value());
}

TEST(DataPattern, WordsMatchPatternWord) {
  const auto buffer = pattern(64, 7, 4096);
  std::uint64_t word = 0;
  std::memcpy(&word, buffer.data() + 16, 8);
  EXPECT_EQ(word, pattern_word(7, 4096 + 16));
  EXPECT_NE(pattern_word(7, 0), 0u);
  EXPECT_NE(pattern_word(0, 0), pattern_word(1, 0));
  EXPECT_NE(pattern_word(0, 0), pattern_word(0, 8));
}

TEST(DataPattern, CorruptedByteIsReportedAtItsFileOffset) {
  const std::uint64_t file_offset = 1 << 20;
  auto buffer = pattern(1 << 20, 2, file_offset);
  buffer[12345] ^= std::byte{0x01};
  const auto mismatch = verify_pattern(buffer, 2, file_offset);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->first_offset, file_offset + 12345);
  EXPECT_EQ(mismatch->wrong_bytes, 1u);
}

TEST(DataPattern, CountsEveryWrongByteAndReportsTheFirst) {
  auto buffer = pattern(8192, 0, 0);
  buffer[5000] = std::byte{0};
  buffer[5001] = std::byte{0};
  buffer[100] ^= std::byte{0xff};
  const auto mismatch = verify_pattern(buffer, 0, 0);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->first_offset, 100u);
  EXPECT_GE(mismatch->wrong_bytes, 2u);  // 5000/5001 zeroed (unless already zero) + byte 100
  EXPECT_LE(mismatch->wrong_bytes, 3u);
}

TEST(DataPattern, AnotherRanksDataIsCaught) {
  const auto buffer = pattern(4096, 1, 0);
  const auto mismatch = verify_pattern(buffer, 2, 0);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->first_offset, 0u);
}

TEST(DataPattern, ABlockAtTheWrongOffsetIsCaught) {
  // What a misdirected write looks like: the right rank's block, written where another belongs.
  const auto buffer = pattern(4096, 0, 4096);
  const auto mismatch = verify_pattern(buffer, 0, 8192);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->first_offset, 8192u);
}

TEST(DataPattern, ZeroedBlockIsCaught) {
  const std::vector<std::byte> zeros(4096);
  const auto mismatch = verify_pattern(zeros, 0, 0);
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_GT(mismatch->wrong_bytes, 4000u);
}

TEST(DataPattern, UnalignedOffsetsAreRefused) {
  std::vector<std::byte> buffer(16);
  EXPECT_THROW(fill_pattern(buffer, 0, 4), std::invalid_argument);
  std::vector<std::byte> odd(12);
  EXPECT_THROW(verify_pattern(odd, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace fabcheck
