// The GPU SDC screens' host side, no CUDA needed: each SM's chain digests against the host's exact
// reference (gpu.sdc), what a pattern check found (gpu.hbm_patterns), and the judge naming the GPU
// by bus id and the SM or address range.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/sdc/hbm_pattern.hpp"
#include "bench/sdc/l2_pattern.hpp"
#include "bench/sdc/sdc_chain.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kGpuSdcProbe = "gpu.sdc";
inline constexpr const char* kHbmPatternsProbe = "gpu.hbm_patterns";
inline constexpr const char* kSmMismatchMetric = "sdc_mismatches";  // lanes an SM got wrong
inline constexpr const char* kPatternMismatchMetric =
    "pattern_mismatches";  // words read back wrong

// The reference digests of lanes first_block .. first_block + lanes - 1, computed on the host's
// CPUs (threads): crc_unit equal to the bit-by-bit CRC, which a GPU's table CRC must match, and
// l2_word the fold of shape.l2_words words of each lane's L2 stream (sdc::l2_digest).
std::vector<sdc::BlockDigest> sdc_reference(std::uint64_t seed, std::uint64_t first_block,
                                            unsigned lanes, const sdc::ChainShape& shape);

struct SmMismatch {
  unsigned sm = 0;
  int pass = 0;
  std::uint64_t block = 0;  // the lane's block number (first_block + lane)
  int word = 0;             // sdc::DigestWord
  std::uint64_t got = 0;
  std::uint64_t expected = 0;
  // l2_word only: the launch block whose slice the lane read, the SM that wrote it, the lane's
  // check of the words (the first wrong one) and that word's byte offset in the buffer.
  unsigned writer_block = 0;
  unsigned writer_sm = 0;
  sdc::L2Read read;
  std::uint64_t read_offset = 0;
};

// One round's L2 pattern as the GPU recorded it: words per lane of a slice, the SM of each writing
// block, the slice each reading block read, each lane's check (blocks x lanes).
struct L2Round {
  std::uint32_t words = 0;
  std::vector<unsigned> writer_sm;
  std::vector<unsigned> partner_of_block;
  std::vector<sdc::L2Read> reads;
};

// What the screen of one GPU found, SM by SM.
struct SmTally {
  std::map<unsigned, std::uint64_t> lanes_by_sm;  // lanes checked on each SM that ran a block
  std::map<unsigned, std::uint64_t> wrong_by_sm;
  std::map<unsigned, SmMismatch> first_by_sm;  // each wrong SM's first mismatch
};

// One launch's results (blocks x lanes digests, the SM of each block, the round's L2 pattern)
// against `reference`; a wrong l2_word is the reading block's SM's, naming the writing SM.
void compare_sm_digests(const std::vector<sdc::BlockDigest>& digests,
                        const std::vector<unsigned>& sm_of_block, const L2Round& l2,
                        const std::vector<sdc::BlockDigest>& reference, std::uint64_t first_block,
                        int pass, SmTally& tally);

// "SM 17: block 4096 (pass 2): FP32 FMA chain 0x... where the host computed 0x... (bits ...)";
// for the L2 word also the slice read: "...; read from launch block 9's slice, written on SM 1:
// word 0 (offset 73728 of the L2 buffer) 0x... where 0x... was written (bits ... differ)"
std::string describe_sm_mismatch(const SmMismatch& mismatch);

// "12,40,41" of a GPU's SMs; "" for none.
std::string sm_list(const std::vector<unsigned>& sms);

// "walking ones (inverted): 3 words wrong, the first at 0x7f0000001000 (offset 4096 of a 35 GiB
// buffer at 0x7f0000000000): 0x... where 0x... was written"
std::string describe_pattern_mismatch(int pattern, bool inverted, const sdc::HbmCheck& check,
                                      std::uint64_t base, std::uint64_t bytes, std::uint64_t got,
                                      std::uint64_t expected);

// FAIL for a GPU with a wrong SM (naming the bus id, the SMs and the first mismatch) or a pattern
// read back wrong (naming the address range); WARN where SMs of the GPU ran no block (not
// screened); PASS a GPU otherwise.
std::vector<Finding> judge_gpu_sdc(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
