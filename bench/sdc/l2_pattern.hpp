// gpu.sdc's L2 traffic pattern, the same on host and GPU: each block writes a seeded word stream
// per lane into its slice of a buffer that fits in L2, and (after the launch ends) a block on
// another SM reads the slice back, checks every word and folds the stream into the digest.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::sdc {

// Word `index` of the L2 stream of the block seeded `seed` (the lane's block_seed): what every
// reader folds, whichever slice it read it from.
FABCHECK_SDC_HD inline std::uint64_t l2_stream_word(std::uint64_t seed, std::uint32_t index) {
  return mix64(seed ^ (0x12C0000000000000ULL + index));
}

// The key of word `index` of slice `slice` (the writing block's): the word in memory is the stream
// word xor this key, so a read of another slice's words (a wrong address) is wrong too.
FABCHECK_SDC_HD inline std::uint64_t l2_slice_key(std::uint64_t slice, std::uint32_t index) {
  return mix64((slice + 1) * 0x9E3779B97F4A7C15ULL ^ (static_cast<std::uint64_t>(index) << 32));
}

// The word the block of slice `slice` writes at word `index` of the stream seeded `seed`.
FABCHECK_SDC_HD inline std::uint64_t l2_written_word(std::uint64_t seed, std::uint64_t slice,
                                                     std::uint32_t index) {
  return l2_stream_word(seed, index) ^ l2_slice_key(slice, index);
}

// Where word `index` of lane `lane` of slice `slice` lies in the buffer (in words): a slice holds
// `words` words of each of `lanes` lanes, lane-minor, so a block's threads touch adjacent words.
FABCHECK_SDC_HD inline std::size_t l2_offset(std::uint64_t slice, unsigned lane,
                                             std::uint32_t index, unsigned lanes,
                                             std::uint32_t words) {
  return (static_cast<std::size_t>(slice) * words + index) * lanes + lane;
}

// The stream's `words` words folded in order: the digest's l2_word.
FABCHECK_SDC_HD inline std::uint64_t l2_digest(std::uint64_t seed, std::uint32_t words) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (std::uint32_t i = 0; i < words; ++i) hash = fold(hash, l2_stream_word(seed, i));
  return hash;
}

// The slice block `block` of `blocks` reads: from the one halfway round the grid onwards, the first
// a block on another SM than `reader_sm` wrote (writer_sm: the SM of each writing block); the
// halfway one when every block ran on reader_sm.
FABCHECK_SDC_HD inline unsigned l2_partner(unsigned block, unsigned blocks,
                                           const unsigned* writer_sm, unsigned reader_sm) {
  const unsigned start = (block + blocks / 2) % blocks;
  for (unsigned step = 0; step < blocks; ++step) {
    const unsigned candidate = (start + step) % blocks;
    if (writer_sm[candidate] != reader_sm) return candidate;
  }
  return start;
}

// What one lane read from its partner's slice: the first word that differed from what was written
// (kNoWrongWord: none), what it read there and what was written.
inline constexpr std::uint32_t kNoWrongWord = 0xFFFFFFFFu;
struct L2Read {
  std::uint64_t got = 0;
  std::uint64_t expected = 0;
  std::uint32_t first_wrong = kNoWrongWord;
  std::uint32_t wrong = 0;
};

// The device memory of one round's L2 pattern, passed to both launches: the buffer (blocks x lanes
// x ChainShape::l2_words words), the SM of each writing block, the slice each reading block read,
// each lane's read.
struct L2Traffic {
  std::uint64_t* buffer = nullptr;
  unsigned* writer_sm = nullptr;
  unsigned* partner_of_block = nullptr;
  L2Read* reads = nullptr;
};

// One lane's read of slice `slice` (written by the block of that slice for the same lane): checks
// each word against l2_written_word, records the first wrong one in `read`, and returns the fold
// of the words read with the slice's keys removed (l2_digest when every word is right).
FABCHECK_SDC_HD inline std::uint64_t l2_read_lane(const std::uint64_t* buffer, std::uint64_t seed,
                                                  std::uint64_t slice, unsigned lane,
                                                  unsigned lanes, std::uint32_t words,
                                                  L2Read& read) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (std::uint32_t i = 0; i < words; ++i) {
    const std::uint64_t got = buffer[l2_offset(slice, lane, i, lanes, words)];
    const std::uint64_t expected = l2_written_word(seed, slice, i);
    if (got != expected && read.wrong++ == 0) {
      read.got = got;
      read.expected = expected;
      read.first_wrong = i;
    }
    hash = fold(hash, got ^ l2_slice_key(slice, i));
  }
  return hash;
}

// Words per lane of a slice for an L2 of `l2_bytes` shared by `blocks` x `lanes` lanes: the buffer
// takes half the L2, at most 32 MiB, and each lane at least one word.
inline std::uint32_t l2_words_per_lane(std::uint64_t l2_bytes, unsigned blocks, unsigned lanes) {
  const std::uint64_t cap = std::uint64_t{32} << 20;
  const std::uint64_t bytes = l2_bytes / 2 < cap ? l2_bytes / 2 : cap;
  const std::uint64_t lanes_total = static_cast<std::uint64_t>(blocks) * lanes;
  const std::uint64_t words = lanes_total == 0 ? 0 : bytes / sizeof(std::uint64_t) / lanes_total;
  return static_cast<std::uint32_t>(words == 0 ? 1 : words);
}

}  // namespace fabcheck::sdc
