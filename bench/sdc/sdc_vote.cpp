// The majority vote over one block's digests, the names of the digest's words and how they are
// written.
#include "bench/sdc/sdc_vote.hpp"

#include <cinttypes>
#include <cstdio>

namespace fabcheck::sdc {

std::string word_hex(std::uint64_t word) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, word);
  return text;
}

const char* digest_word_name(int word) {
  switch (word) {
    case int_chain_word:
      return "integer multiply/xor/rotate chain";
    case fp64_chain_word:
      return "FP64 FMA chain";
    case fp32_chain_word:
      return "FP32 FMA chain";
    case crc_soft_word:
      return "CRC32C (bit by bit)";
    case crc_unit_word:
      return "CRC32C (CRC unit)";
    case lanes_soft_word:
      return "FP64 FMA, 4 lanes one at a time";
    case lanes_unit_word:
      return "FP64 FMA, 4 lanes (vector unit)";
    case wide_lanes_soft_word:
      return "FP64 FMA, the 4 lanes twice one at a time";
    case wide_lanes_unit_word:
      return "FP64 FMA, 8 lanes (512-bit vector unit)";
    case l2_word:
      return "L2 word stream (written by another SM)";
    default:
      return "?";
  }
}

int first_differing_word(const BlockDigest& a, const BlockDigest& b) {
  for (int w = 0; w < kDigestWords; ++w) {
    if (a.words[w] != b.words[w]) return w;
  }
  return -1;
}

BlockVote vote_block(const std::vector<BlockDigest>& by_worker) {
  BlockVote vote;
  // Boyer-Moore majority candidate, then counted: O(n) for thousands of SMs or cores.
  std::optional<BlockDigest> candidate;
  std::size_t lead = 0;
  for (const BlockDigest& digest : by_worker) {
    if (lead == 0) {
      candidate = digest;
      lead = 1;
    } else if (same_digest(*candidate, digest)) {
      ++lead;
    } else {
      --lead;
    }
  }
  std::size_t count = 0;
  for (const BlockDigest& digest : by_worker) {
    if (candidate && same_digest(*candidate, digest)) ++count;
  }
  const bool strict_majority = candidate && 2 * count > by_worker.size();
  for (std::size_t w = 0; w < by_worker.size(); ++w) {
    if (!strict_majority || !same_digest(*candidate, by_worker[w])) {
      vote.dissenters.push_back(static_cast<int>(w));
    }
  }
  if (strict_majority) {
    vote.majority = candidate;
    vote.agreeing = count;
  }
  return vote;
}

}  // namespace fabcheck::sdc
