// IoOffsets: sequential offsets, and random ones from a keyed permutation of the block numbers.
#include "storage/io_offsets.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "storage/mix64.hpp"

namespace fabcheck {

IoOffsets::IoOffsets(bool random, std::uint64_t block_size, std::uint64_t region_bytes,
                     std::uint64_t seed)
    : random_(random),
      block_size_(block_size),
      region_bytes_(region_bytes),
      blocks_(0),
      seed_(seed) {
  if (block_size == 0 || block_size > (1ull << 30) || region_bytes < block_size) {
    throw std::invalid_argument("IoOffsets: the region must hold at least one block of 1..1G");
  }
  blocks_ = random ? region_bytes / block_size : (region_bytes + block_size - 1) / block_size;
  // Two halves of half_bits_ each cover every block number (at least one bit each).
  const unsigned bits = static_cast<unsigned>(std::bit_width(blocks_ - 1));
  half_bits_ = std::max(1u, (bits + 1) / 2);
  start_pass();
}

void IoOffsets::start_pass() {
  position_ = 0;
  for (std::size_t round = 0; round < round_keys_.size(); ++round) {
    round_keys_[round] = mix64(seed_ ^ mix64(pass_ * round_keys_.size() + round + 1));
  }
  ++pass_;
}

std::uint64_t IoOffsets::permute(std::uint64_t index) const {
  const std::uint64_t mask = (1ull << half_bits_) - 1;
  std::uint64_t left = index >> half_bits_;
  std::uint64_t right = index & mask;
  for (const std::uint64_t key : round_keys_) {
    const std::uint64_t next = left ^ (mix64(right ^ key) & mask);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

IoOffsets::Block IoOffsets::next() {
  if (position_ == blocks_) start_pass();
  std::uint64_t block = position_++;
  if (random_) {
    // The domain is under 4 * blocks_, so the walk takes fewer than 4 steps on average.
    do {
      block = permute(block);
    } while (block >= blocks_);
  }
  const std::uint64_t offset = block * block_size_;
  return {offset, static_cast<std::uint32_t>(std::min(block_size_, region_bytes_ - offset))};
}

}  // namespace fabcheck
