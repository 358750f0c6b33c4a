// Comparing digests of the same block: one worker (core, SM) against the reference or the
// majority, and the word and bits where they first differ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::sdc {

// A digest word (or hash) as every SDC report writes it: "0x" and 16 hex digits.
std::string word_hex(std::uint64_t word);

// "integer multiply/xor/rotate chain", "FP64 FMA chain", ...
const char* digest_word_name(int word);

// The first word where a and b differ; -1 when they are the same.
int first_differing_word(const BlockDigest& a, const BlockDigest& b);

// What the workers computed for one block: the digest more than half of them agree on (none when
// no digest has a strict majority: two cores that disagree, three that each differ), how many
// computed it, and the workers that computed anything else.
struct BlockVote {
  std::optional<BlockDigest> majority;
  std::size_t agreeing = 0;
  std::vector<int> dissenters;  // indices into by_worker, ascending; all of them without majority
};
BlockVote vote_block(const std::vector<BlockDigest>& by_worker);

}  // namespace fabcheck::sdc
