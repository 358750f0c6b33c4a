// Where the I/O loop's requests go: block after block (wrapping at the region's end), or at random
// the way fio's default random map does it: each pass visits every block once, in a new order.
#pragma once

#include <array>
#include <cstdint>

namespace fabcheck {

class IoOffsets {
 public:
  struct Block {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
  };

  // Random: the region's whole blocks only (a request never crosses its end). Sequential: the last
  // block is cut short at the region's end. Throws std::invalid_argument for a block size of 0 or
  // above 1 GiB, or a region without a whole block.
  IoOffsets(bool random, std::uint64_t block_size, std::uint64_t region_bytes, std::uint64_t seed);

  Block next();
  // Blocks a pass visits.
  std::uint64_t blocks() const { return blocks_; }

 private:
  // A bijection on [0, 2^(2 * half_bits_)) (a four-round Feistel network keyed per pass); walking
  // its cycle until the value falls below blocks_ makes it a bijection on [0, blocks_), so a pass
  // needs no map of visited blocks however large the file (fio keeps a bitmap instead).
  std::uint64_t permute(std::uint64_t index) const;
  void start_pass();

  bool random_;
  std::uint64_t block_size_;
  std::uint64_t region_bytes_;
  std::uint64_t blocks_;
  std::uint64_t seed_;
  unsigned half_bits_ = 1;
  std::uint64_t pass_ = 0;
  std::uint64_t position_ = 0;  // index of the next block within the pass
  std::array<std::uint64_t, 4> round_keys_{};
};

}  // namespace fabcheck
