// The SDC chains against values computed independently (chain_reference.py: exact rationals rounded
// once for FMA, a table-driven CRC32C), and the properties a screen rests on.
#include "bench/sdc/sdc_chain.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "bench/sdc/cpu_block.hpp"
#include "bench/sdc/crc32c_unit.hpp"
#include "bench/sdc/fma_lanes_unit.hpp"
#include "bench/sdc/hbm_pattern.hpp"
#include "bench/sdc/output_hash.hpp"
#include "bench/sdc/sdc_vote.hpp"

namespace fabcheck::sdc {
namespace {

constexpr std::uint64_t kSeed = 0x910a2dec89025cc1ULL;  // block_seed(1, 0)

TEST(SdcChain, BlockSeedAndIntegerStepsMatchTheReference) {
  EXPECT_EQ(block_seed(1, 0), kSeed);
  EXPECT_EQ(int_step(1, 0), 0xa2ab91e2c4689a12ULL);
  EXPECT_EQ(int_chain(kSeed, 3), 0x064cd8a9f4fd9c7fULL);
  EXPECT_EQ(int_chain(kSeed, 1000), 0xc3de4e30ee272380ULL);
}

TEST(SdcChain, Fp64ChainIsExactFusedMultiplyAdd) {
  EXPECT_EQ(fp64_chain(kSeed, 1), 0x123c1ec17c6a22caULL);
  EXPECT_EQ(fp64_chain(kSeed, 1000), 0xc7d2a93f294e4b76ULL);
}

TEST(SdcChain, Fp32ChainIsExactFusedMultiplyAdd) {
  EXPECT_EQ(fp32_chain(kSeed, 1), 0x437939ce10a23b46ULL);
  EXPECT_EQ(fp32_chain(kSeed, 1000), 0xa4e9598e162b5cb0ULL);
}

TEST(SdcChain, TheHostsFmaRoundsOnce) {
  // (1 + 2^-30)^2 - (1 + 2^-29) is 2^-60 exactly; a multiply rounded before the add gives 0.
  const double a = 1 + 0x1p-30;
  volatile double minus = -(1 + 0x1p-29);
  EXPECT_EQ(__builtin_fma(a, a, minus), 0x1p-60);
  const float f = 1 + 0x1p-12f;
  volatile float minus_f = -(1 + 0x1p-11f);
  EXPECT_EQ(__builtin_fmaf(f, f, minus_f), 0x1p-24f);
}

TEST(SdcChain, UnitValuesAreExactAndInRange) {
  EXPECT_EQ(unit_double(0), 0.0);
  EXPECT_EQ(unit_double(0x8000000000000000ULL), -1.0);
  EXPECT_EQ(unit_double(~0ULL), -0x1p-52);
  EXPECT_EQ(unit_double(0x7FFFFFFFFFFFFFFFULL), 1 - 0x1p-52);
  EXPECT_EQ(unit_float(0x8000000000000000ULL), -1.0f);
  EXPECT_EQ(unit_float(0x7FFFFFFF00000000ULL), 1 - 0x1p-23f);
}

TEST(SdcChain, EveryStepCountsNotOnlyTheLast) {
  // Chains differing in their first step only differ at the end: the step hash keeps it.
  const std::uint64_t other = kSeed ^ 1;
  EXPECT_NE(fp64_chain(kSeed, 1000), fp64_chain(other, 1000));
  EXPECT_NE(fp32_chain(kSeed, 1000), fp32_chain(other, 1000));
  EXPECT_NE(int_chain(kSeed, 1000), int_chain(other, 1000));
}

TEST(SdcCrc, BitwiseCrc32cMatchesATableDrivenOne) {
  EXPECT_EQ(crc32c_of_stream(kSeed, 4), 0x019c4e3du);
  EXPECT_EQ(crc32c_of_stream(kSeed, 1024), 0x5a90a16fu);
  // "12345678" as one little-endian word.
  std::uint32_t crc = ~crc32c_bitwise_update(0xFFFFFFFFu, 0x3837363534333231ULL);
  EXPECT_EQ(crc, 0x6087809au);
}

TEST(SdcCrc, TheCpusCrcUnitAgreesWithTheReference) {
  if (*crc32c_unit_name() == '\0') GTEST_SKIP() << "this CPU has no CRC32C instruction";
  for (std::uint32_t words : {1u, 4u, 1024u}) {
    EXPECT_EQ(crc32c_of_stream_by_unit(kSeed, words), crc32c_of_stream(kSeed, words)) << words;
  }
  const BlockDigest digest = cpu_block(kSeed, ChainShape{});
  EXPECT_EQ(digest.words[crc_unit_word], digest.words[crc_soft_word]);
  EXPECT_EQ(digest.words[int_chain_word], int_chain(kSeed, ChainShape{}.steps));
}

TEST(SdcLanes, FourLanesAreFourChainsFoldedInOrder) {
  std::uint64_t expected = 0xCBF29CE484222325ULL;
  for (int lane = 0; lane < kFmaLanes; ++lane) {
    const std::uint64_t stream = lane_stream(kSeed, lane);
    expected = fold(expected, fma_chain<double>(stream, lane_start(stream), 500));
  }
  EXPECT_EQ(fp64_lanes(kSeed, 500), expected);
  // Lane 0 is the FP64 chain of its own stream: the exact reference holds for it.
  const std::uint64_t stream0 = lane_stream(kSeed, 0);
  EXPECT_EQ(fma_chain<double>(stream0, mix64(stream0 ^ 0xF64ULL), 1000), fp64_chain(stream0, 1000));
}

TEST(SdcLanes, TheCpusVectorUnitGivesTheLanesBitForBit) {
  if (*fma_lanes_unit_name() == '\0') GTEST_SKIP() << "this CPU has no AVX2 FMA unit";
  for (std::uint32_t steps : {1u, 7u, 16384u}) {
    EXPECT_EQ(fp64_lanes_by_unit(kSeed, steps), fp64_lanes(kSeed, steps)) << steps;
  }
  const BlockDigest digest = cpu_block(kSeed, ChainShape{});
  EXPECT_EQ(digest.words[lanes_unit_word], digest.words[lanes_soft_word]);
  EXPECT_NE(digest.words[lanes_soft_word], 0u);
}

// The same four lanes twice: the reference folds each lane's hash in order, twice over.
TEST(SdcLanes, TheWideLanesAreTheFourLanesTwice) {
  std::uint64_t hashes[kFmaLanes];
  fp64_lane_hashes(kSeed, 300, hashes);
  std::uint64_t expected = 0xCBF29CE484222325ULL;
  for (int round = 0; round < 2; ++round) {
    for (int lane = 0; lane < kFmaLanes; ++lane) {
      const std::uint64_t stream = lane_stream(kSeed, lane);
      expected = fold(expected, fma_chain<double>(stream, lane_start(stream), 300));
    }
  }
  EXPECT_EQ(fold_lanes(hashes, 2), expected);
  EXPECT_NE(fold_lanes(hashes, 2), fold_lanes(hashes));
  EXPECT_EQ(fold_lanes(hashes), fp64_lanes(kSeed, 300));
}

// Runs on this machine's cores, which have AVX-512 (a machine without it skips, named as skipped).
TEST(SdcLanes, TheCpusWideVectorUnitGivesTheLanesTwiceBitForBit) {
  if (*wide_fma_lanes_unit_name() == '\0') GTEST_SKIP() << "this CPU has no AVX-512 FMA unit";
  for (std::uint32_t steps : {1u, 7u, 16384u}) {
    std::uint64_t hashes[kFmaLanes];
    fp64_lane_hashes(kSeed, steps, hashes);
    EXPECT_EQ(wide_fp64_lanes_by_unit(kSeed, steps), fold_lanes(hashes, 2)) << steps;
  }
  const BlockDigest digest = cpu_block(kSeed, ChainShape{});
  EXPECT_EQ(digest.words[wide_lanes_unit_word], digest.words[wide_lanes_soft_word]);
  EXPECT_NE(digest.words[wide_lanes_soft_word], 0u);
}

TEST(SdcVote, AMinorityIsNamedAgainstTheMajority) {
  BlockDigest good;
  good.words[int_chain_word] = 7;
  BlockDigest bad = good;
  bad.words[fp64_chain_word] = 1;
  const BlockVote vote = vote_block({good, good, bad, good});
  ASSERT_TRUE(vote.majority.has_value());
  EXPECT_TRUE(same_digest(*vote.majority, good));
  EXPECT_EQ(vote.agreeing, 3u);
  EXPECT_EQ(vote.dissenters, std::vector<int>{2});
  EXPECT_EQ(first_differing_word(bad, good), fp64_chain_word);
  EXPECT_EQ(first_differing_word(good, good), -1);
}

TEST(SdcVote, WithoutAStrictMajorityEveryWorkerIsADissenter) {
  BlockDigest a, b, c;
  b.words[0] = 1;
  c.words[0] = 2;
  EXPECT_EQ(vote_block({a, b}).dissenters, (std::vector<int>{0, 1}));
  EXPECT_FALSE(vote_block({a, b}).majority.has_value());
  EXPECT_EQ(vote_block({a, b, c}).dissenters, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(vote_block({a, b, a, b}).dissenters.size(), 4u);  // half is not a majority
  // The majority need not come first.
  const BlockVote vote = vote_block({b, a, a});
  ASSERT_TRUE(vote.majority.has_value());
  EXPECT_EQ(vote.dissenters, std::vector<int>{0});
  EXPECT_TRUE(vote_block({a}).dissenters.empty());
}

TEST(SdcOutputHash, AnyOrderGivesTheSameHashAndAnyBitChangesIt) {
  std::vector<std::uint32_t> words(1000);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = static_cast<std::uint32_t>(i * 7919);
  const std::uint64_t forward = output_hash(words.data(), words.size());
  std::uint64_t backward = 0;
  for (std::size_t i = words.size(); i-- > 0;) backward += output_hash_term(i, words[i]);
  EXPECT_EQ(forward, backward);
  // Swapping two words' places is a change, not the same multiset.
  std::swap(words[10], words[20]);
  EXPECT_NE(output_hash(words.data(), words.size()), forward);
  std::swap(words[10], words[20]);
  for (int bit = 0; bit < 32; ++bit) {
    words[500] ^= 1u << bit;
    EXPECT_NE(output_hash(words.data(), words.size()), forward) << bit;
    words[500] ^= 1u << bit;
  }
}

TEST(SdcHbmPattern, WordsOfEachPatternAndTheirInverse) {
  EXPECT_EQ(hbm_pattern_word(walking_ones, 0, 0, 0, false), 1u);
  EXPECT_EQ(hbm_pattern_word(walking_ones, 0, 63, 0, false), 1ULL << 63);
  EXPECT_EQ(hbm_pattern_word(walking_ones, 0, 64, 0, false), 1u);
  EXPECT_EQ(hbm_pattern_word(walking_ones, 0, 0, 5, true), ~(1ULL << 5));
  EXPECT_EQ(hbm_pattern_word(address_in_address, 0x7f0000000000ULL, 3, 0, false),
            0x7f0000000018ULL);
  EXPECT_NE(hbm_pattern_word(random_words, 0, 1, 1, false),
            hbm_pattern_word(random_words, 0, 1, 2, false));
  EXPECT_STREQ(hbm_pattern_name(address_in_address), "address in address");
}

}  // namespace
}  // namespace fabcheck::sdc
