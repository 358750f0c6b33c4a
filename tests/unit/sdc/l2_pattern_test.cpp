// gpu.sdc's L2 pattern against values computed independently (chain_reference.py), and what a read
// of a slice finds: a flipped word, a read of another slice, the partner on another SM.
#include "bench/sdc/l2_pattern.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace fabcheck::sdc {
namespace {

constexpr std::uint64_t kSeed = 0x910a2dec89025cc1ULL;  // block_seed(1, 0)

TEST(SdcL2Pattern, WordsKeysAndDigestMatchTheReference) {
  EXPECT_EQ(l2_stream_word(kSeed, 0), 0x67a027895db10856ULL);
  EXPECT_EQ(l2_slice_key(9, 0), 0xf3b8488c368cb0a6ULL);
  EXPECT_EQ(l2_written_word(kSeed, 9, 3), 0x49ea83721d423b11ULL);
  EXPECT_EQ(l2_digest(kSeed, 1), 0x63bfeea8b512d469ULL);
  EXPECT_EQ(l2_digest(kSeed, 32), 0xcbde7507ba43c1e5ULL);
  // Word i of lane l of slice s: lane-minor within a slice, 2 lanes x 3 words a slice.
  EXPECT_EQ(l2_offset(0, 0, 0, 2, 3), 0u);
  EXPECT_EQ(l2_offset(0, 1, 0, 2, 3), 1u);
  EXPECT_EQ(l2_offset(0, 0, 1, 2, 3), 2u);
  EXPECT_EQ(l2_offset(2, 1, 2, 2, 3), 17u);  // (2 * 3 + 2) * 2 + 1
}

TEST(SdcL2Pattern, TheBufferIsHalfTheL2AtMost32MiB) {
  EXPECT_EQ(l2_words_per_lane(50u << 20, 528, 128), 48u);  // an H100: 132 SMs, 50 MiB
  EXPECT_EQ(l2_words_per_lane(std::uint64_t{128} << 20, 16, 128), (32u << 20) / 8 / 2048);
  EXPECT_EQ(l2_words_per_lane(1u << 20, 16, 128), 32u);
  EXPECT_EQ(l2_words_per_lane(0, 16, 128), 1u);  // an L2 of unknown size: one word a lane
}

// Two slices of 2 lanes x 4 words, as blocks 0 and 1 write them.
std::vector<std::uint64_t> written(std::uint64_t seed) {
  std::vector<std::uint64_t> buffer(2 * 2 * 4);
  for (unsigned slice = 0; slice < 2; ++slice) {
    for (unsigned lane = 0; lane < 2; ++lane) {
      for (std::uint32_t i = 0; i < 4; ++i)
        buffer[l2_offset(slice, lane, i, 2, 4)] = l2_written_word(seed, slice, i);
    }
  }
  return buffer;
}

TEST(SdcL2Pattern, AReadFoldsTheStreamAndNamesTheFirstWrongWord) {
  std::vector<std::uint64_t> buffer = written(kSeed);
  L2Read clean;
  EXPECT_EQ(l2_read_lane(buffer.data(), kSeed, 1, 1, 2, 4, clean), l2_digest(kSeed, 4));
  EXPECT_EQ(clean.wrong, 0u);
  EXPECT_EQ(clean.first_wrong, kNoWrongWord);

  buffer[l2_offset(1, 1, 2, 2, 4)] ^= 1u << 5;
  buffer[l2_offset(1, 1, 3, 2, 4)] ^= 1u;
  L2Read flipped;
  EXPECT_NE(l2_read_lane(buffer.data(), kSeed, 1, 1, 2, 4, flipped), l2_digest(kSeed, 4));
  EXPECT_EQ(flipped.wrong, 2u);
  EXPECT_EQ(flipped.first_wrong, 2u);
  EXPECT_EQ(flipped.expected, l2_written_word(kSeed, 1, 2));
  EXPECT_EQ(flipped.got ^ flipped.expected, 1u << 5);
  // Lane 0 of the same slice is untouched.
  L2Read other_lane;
  EXPECT_EQ(l2_read_lane(buffer.data(), kSeed, 1, 0, 2, 4, other_lane), l2_digest(kSeed, 4));
}

TEST(SdcL2Pattern, ReadingAnotherSlicesWordsIsWrong) {
  const std::vector<std::uint64_t> buffer = written(kSeed);
  // Slice 0's words read as if they were slice 1's (a wrong address): every word differs.
  std::vector<std::uint64_t> misrouted(buffer);
  for (std::size_t i = 0; i < 8; ++i) misrouted[8 + i] = buffer[i];
  L2Read read;
  EXPECT_NE(l2_read_lane(misrouted.data(), kSeed, 1, 0, 2, 4, read), l2_digest(kSeed, 4));
  EXPECT_EQ(read.wrong, 4u);
  EXPECT_EQ(read.first_wrong, 0u);
}

TEST(SdcL2Pattern, ABlockReadsTheFirstSliceFromHalfwayRoundWrittenOnAnotherSm) {
  // 8 blocks on 4 SMs, block b on SM b % 4: halfway round from block 0 is block 4, also SM 0.
  const std::vector<unsigned> writer_sm = {0, 1, 2, 3, 0, 1, 2, 3};
  EXPECT_EQ(l2_partner(0, 8, writer_sm.data(), 0), 5u);
  EXPECT_EQ(l2_partner(3, 8, writer_sm.data(), 3), 0u);  // 7 is SM 3: wraps to block 0
  EXPECT_EQ(l2_partner(1, 8, writer_sm.data(), 2), 5u);  // the reader ran elsewhere this time
  const std::vector<unsigned> one_sm = {0, 0, 0, 0};
  EXPECT_EQ(l2_partner(1, 4, one_sm.data(), 0), 3u);  // no other SM: the halfway block
}

}  // namespace
}  // namespace fabcheck::sdc
