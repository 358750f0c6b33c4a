// The data every storage pattern writes: each 8-byte word is a function of the writing rank and its
// file offset, so a read anywhere can be checked without keeping a copy, and a block landing at
// the wrong offset or coming from the wrong rank's file is caught as surely as a flipped bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace fabcheck {

// The word that belongs at byte `offset` (a multiple of 8) of a file written by `rank`.
std::uint64_t pattern_word(int rank, std::uint64_t offset);

// Fills `buffer` with the words for file bytes [offset, offset + size). `offset` and the size must
// be multiples of 8.
void fill_pattern(std::span<std::byte> buffer, int rank, std::uint64_t offset);

struct PatternMismatch {
  std::uint64_t first_offset = 0;  // file offset of the first byte that differs
  std::uint64_t wrong_bytes = 0;   // how many bytes in the buffer differ
};

// Checks `buffer` against file bytes [offset, offset + size) of `rank`; nullopt when all match.
std::optional<PatternMismatch> verify_pattern(std::span<const std::byte> buffer, int rank,
                                              std::uint64_t offset);

}  // namespace fabcheck
