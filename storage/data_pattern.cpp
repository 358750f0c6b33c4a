// Data pattern: a per-(rank, 4 KiB block) key mixed with the word's offset; cheap enough to fill
// and check at memory speed.
#include "storage/data_pattern.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "storage/mix64.hpp"

namespace fabcheck {

namespace {

constexpr std::uint64_t kBlockBytes = 4096;
constexpr std::uint64_t kOffsetStride = 0x9E3779B97F4A7C15ull;

// A good mix of rank and block number, computed once per 4 KiB.
std::uint64_t block_key(int rank, std::uint64_t block) {
  return mix64(block * 0xD1B54A32D192ED03ull +
               (static_cast<std::uint64_t>(rank) + 1) * 0xA0761D6478BD642Full);
}

void require_aligned(std::uint64_t offset, std::size_t size) {
  if (offset % 8 != 0 || size % 8 != 0) {
    throw std::invalid_argument("data pattern: offset and size must be multiples of 8");
  }
}

// Calls `body(word_index_in_buffer, expected_word)` run by run of words sharing a block key.
template <typename Body>
void for_each_block_run(std::size_t size, std::uint64_t offset, int rank, Body&& body) {
  std::size_t done = 0;
  while (done < size) {
    const std::uint64_t file_offset = offset + done;
    const std::uint64_t block = file_offset / kBlockBytes;
    const std::size_t run = static_cast<std::size_t>(
        std::min<std::uint64_t>(size - done, (block + 1) * kBlockBytes - file_offset));
    body(done / 8, run / 8, block_key(rank, block), file_offset);
    done += run;
  }
}

}  // namespace

std::uint64_t pattern_word(int rank, std::uint64_t offset) {
  return block_key(rank, offset / kBlockBytes) ^ (offset * kOffsetStride);
}

void fill_pattern(std::span<std::byte> buffer, int rank, std::uint64_t offset) {
  require_aligned(offset, buffer.size());
  auto* words = reinterpret_cast<std::uint64_t*>(buffer.data());
  for_each_block_run(
      buffer.size(), offset, rank,
      [&](std::size_t first, std::size_t count, std::uint64_t key, std::uint64_t file_offset) {
        std::uint64_t* out = words + first;
        for (std::size_t i = 0; i < count; ++i) {
          out[i] = key ^ ((file_offset + 8 * i) * kOffsetStride);
        }
      });
}

std::optional<PatternMismatch> verify_pattern(std::span<const std::byte> buffer, int rank,
                                              std::uint64_t offset) {
  require_aligned(offset, buffer.size());
  const auto* words = reinterpret_cast<const std::uint64_t*>(buffer.data());
  std::optional<PatternMismatch> mismatch;
  for_each_block_run(
      buffer.size(), offset, rank,
      [&](std::size_t first, std::size_t count, std::uint64_t key, std::uint64_t file_offset) {
        const std::uint64_t* in = words + first;
        std::uint64_t differ = 0;
        for (std::size_t i = 0; i < count; ++i) {
          differ |= in[i] ^ (key ^ ((file_offset + 8 * i) * kOffsetStride));
        }
        if (differ == 0) return;  // the common case: one pass, no branch per word
        for (std::size_t i = 0; i < count; ++i) {
          const std::uint64_t diff = in[i] ^ (key ^ ((file_offset + 8 * i) * kOffsetStride));
          if (diff == 0) continue;
          unsigned char bytes[8];
          std::memcpy(bytes, &diff, sizeof bytes);
          for (std::size_t b = 0; b < 8; ++b) {
            if (bytes[b] == 0) continue;
            if (!mismatch) mismatch = PatternMismatch{file_offset + 8 * i + b, 0};
            ++mismatch->wrong_bytes;
          }
        }
      });
  return mismatch;
}

}  // namespace fabcheck
