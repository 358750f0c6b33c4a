// IoOffsets: sequential offsets wrap and cut the last block short; random ones visit every whole
// block once a pass, aligned and inside the region, in an order that is not sequential and changes
// from pass to pass.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "storage/io_offsets.hpp"

namespace fabcheck {
namespace {

std::vector<std::uint64_t> pass_of(IoOffsets& offsets) {
  std::vector<std::uint64_t> blocks;
  for (std::uint64_t i = 0; i < offsets.blocks(); ++i) {
    const IoOffsets::Block block = offsets.next();
    blocks.push_back(block.offset);
  }
  return blocks;
}

TEST(IoOffsets, SequentialWrapsAndCutsTheLastBlockShort) {
  IoOffsets offsets(false, 4096, 10 * 1024, 1);
  ASSERT_EQ(offsets.blocks(), 3u);
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> expected = {
      {0, 4096}, {4096, 4096}, {8192, 2048}, {0, 4096}, {4096, 4096}};
  for (const auto& [offset, length] : expected) {
    const IoOffsets::Block block = offsets.next();
    EXPECT_EQ(block.offset, offset);
    EXPECT_EQ(block.length, length);
  }
}

TEST(IoOffsets, RandomVisitsEveryWholeBlockOncePerPass) {
  // Block counts at and around powers of two, where the permutation's domain grows.
  for (const std::uint64_t blocks :
       {1ull, 2ull, 3ull, 4ull, 5ull, 255ull, 256ull, 257ull, 1000ull, 4095ull, 65537ull}) {
    // A partial block at the end is never asked for by random reads.
    IoOffsets offsets(true, 4096, blocks * 4096 + 512, 42);
    ASSERT_EQ(offsets.blocks(), blocks);
    for (int pass = 0; pass < 2; ++pass) {
      std::set<std::uint64_t> seen;
      for (std::uint64_t i = 0; i < blocks; ++i) {
        const IoOffsets::Block block = offsets.next();
        EXPECT_EQ(block.offset % 4096, 0u) << blocks << " blocks";
        EXPECT_EQ(block.length, 4096u) << blocks << " blocks";
        EXPECT_LT(block.offset, blocks * 4096) << blocks << " blocks";
        seen.insert(block.offset);
      }
      EXPECT_EQ(seen.size(), blocks) << blocks << " blocks, pass " << pass;
    }
  }
}

TEST(IoOffsets, RandomOrderIsNeitherSequentialNorTheSameEachPassOrSeed) {
  IoOffsets offsets(true, 4096, 4096ull * 4096, 7);
  const std::vector<std::uint64_t> first = pass_of(offsets);
  const std::vector<std::uint64_t> second = pass_of(offsets);
  IoOffsets other_seed(true, 4096, 4096ull * 4096, 8);
  EXPECT_NE(first, second);
  EXPECT_NE(first, pass_of(other_seed));
  std::size_t neighbours = 0;
  for (std::size_t i = 1; i < first.size(); ++i) {
    if (first[i] == first[i - 1] + 4096 || first[i] + 4096 == first[i - 1]) ++neighbours;
  }
  EXPECT_LT(neighbours, first.size() / 100);  // a random order has about 2 in 4096
  // Spread: each sixteenth of the file gets about a sixteenth of the first 1024 requests.
  std::vector<int> sixteenths(16);
  for (std::size_t i = 0; i < 1024; ++i) ++sixteenths[first[i] / (4096ull * 256)];
  for (int count : sixteenths) {
    EXPECT_GT(count, 30);
    EXPECT_LT(count, 110);
  }
}

TEST(IoOffsets, SameSeedSameOrder) {
  IoOffsets a(true, 4096, 1 << 20, 99);
  IoOffsets b(true, 4096, 1 << 20, 99);
  EXPECT_EQ(pass_of(a), pass_of(b));
}

TEST(IoOffsets, RegionWithoutAWholeBlockIsRefused) {
  EXPECT_THROW(IoOffsets(true, 4096, 4095, 1), std::invalid_argument);
  EXPECT_THROW(IoOffsets(false, 0, 4096, 1), std::invalid_argument);
  EXPECT_THROW(IoOffsets(false, (1ull << 30) + 1, 1ull << 31, 1), std::invalid_argument);
}

}  // namespace
}  // namespace fabcheck
