// gpu.sdc's comparison with the host reference: the L2 word checked like the other words, and a
// wrong one named with the SM that read it, the SM that wrote it and the first wrong word.
#include "kernels/sdc_comparison.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

// Two blocks of two lanes, each lane's L2 stream of 4 words: block 0 on SM 3 read block 1's slice
// (written on SM 6), block 1 on SM 6 read block 0's (written on SM 3).
struct Round {
  sdc::ChainShape shape;
  std::vector<sdc::BlockDigest> reference;
  std::vector<sdc::BlockDigest> digests;
  std::vector<unsigned> sm_of_block{3, 6};
  L2Round l2;
  Round() {
    shape.steps = 16;
    shape.crc_words = 4;
    shape.l2_words = 4;
    reference = sdc_reference(7, 256, 2, shape);
    digests = {reference[0], reference[1], reference[0], reference[1]};
    l2 = {4, {3, 6}, {1, 0}, std::vector<sdc::L2Read>(4)};
  }
};

TEST(SdcComparison, TheReferenceL2WordIsTheFoldOfEachLanesStream) {
  const Round round;
  EXPECT_EQ(round.reference[1].words[sdc::l2_word], sdc::l2_digest(sdc::block_seed(7, 257), 4));
  EXPECT_NE(round.reference[0].words[sdc::l2_word], round.reference[1].words[sdc::l2_word]);
  SmTally tally;
  compare_sm_digests(round.digests, round.sm_of_block, round.l2, round.reference, 256, 0, tally);
  EXPECT_EQ(tally.wrong_by_sm.size(), 0u);
  EXPECT_EQ(tally.lanes_by_sm.at(3), 2u);
}

TEST(SdcComparison, AWrongL2WordNamesTheReadingAndTheWritingSm) {
  Round round;
  // Lane 1 of block 1 (SM 6) read word 2 of block 0's slice with bit 5 flipped.
  sdc::L2Read& read = round.l2.reads[1 * 2 + 1];
  read.expected = sdc::l2_written_word(sdc::block_seed(7, 257), 0, 2);
  read.got = read.expected ^ (1u << 5);
  read.first_wrong = 2;
  read.wrong = 1;
  round.digests[3].words[sdc::l2_word] ^= 0x40;
  SmTally tally;
  compare_sm_digests(round.digests, round.sm_of_block, round.l2, round.reference, 256, 1, tally);
  ASSERT_EQ(tally.first_by_sm.size(), 1u);
  const SmMismatch& m = tally.first_by_sm.at(6);
  EXPECT_EQ(m.word, sdc::l2_word);
  EXPECT_EQ(m.writer_block, 0u);
  EXPECT_EQ(m.writer_sm, 3u);
  EXPECT_EQ(m.read_offset, (2 * 2 + 1) * 8u);  // word 2 of lane 1 of slice 0
  const std::string text = describe_sm_mismatch(m);
  EXPECT_EQ(text.rfind("SM 6: block 257 (pass 2): L2 word stream (written by another SM) 0x", 0),
            0u)
      << text;
  EXPECT_NE(text.find("(bits 0x0000000000000040 differ); read from launch block 0's slice, "
                      "written on SM 3: 1 word wrong, the first word 2 (offset 40 of the L2 "
                      "buffer) "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("was written (bits 0x0000000000000020 differ)"), std::string::npos) << text;
}

TEST(SdcComparison, AWrongFoldOfRightWordsIsTheReadersOwn) {
  Round round;
  round.digests[0].words[sdc::l2_word] ^= 1;
  SmTally tally;
  compare_sm_digests(round.digests, round.sm_of_block, round.l2, round.reference, 256, 0, tally);
  const std::string text = describe_sm_mismatch(tally.first_by_sm.at(3));
  EXPECT_NE(text.find("read from launch block 1's slice, written on SM 6: every word read was as "
                      "written (SM 3 folded them wrong)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace fabcheck
