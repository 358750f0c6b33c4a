// The timed loop against an in-memory engine whose buffers hold garbage while in flight and the
// block's data once completed, completing requests out of order: every completion counted once,
// bytes accounted, the queue kept full, and no buffer handed out again before its block was
// verified.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "storage/data_pattern.hpp"
#include "storage/io_loop.hpp"

namespace fabcheck {
namespace {

constexpr int kRank = 3;

// A file of `size` bytes holding kRank's pattern. A buffer is scribbled over when its request is
// submitted (a device may write it at any time until completion) and gets the block at completion,
// so a buffer handed out again before its block was checked is checked holding garbage.
class MemoryEngine final : public IoEngine {
 public:
  MemoryEngine(std::uint32_t depth, std::uint64_t size, std::size_t max_per_reap)
      : file_(size), depth_(depth), max_per_reap_(max_per_reap) {
    fill_pattern(file_, kRank, 0);
  }
  std::string name() const override { return "memory"; }
  IoEngineCaps caps() const override { return {.asynchronous = true, .touches_files = true}; }
  int adopt(UniqueFd) override { return 0; }
  void close(int) override {}
  std::uint32_t queue_depth() const override { return depth_; }

  void submit(std::span<const IoRequest> requests) override {
    for (const IoRequest& request : requests) {
      if (in_flight_.size() >= depth_) throw std::logic_error("more than the depth in flight");
      if (!buffers_in_flight_.insert(request.buffer).second) {
        throw std::logic_error("a buffer submitted twice while in flight");
      }
      if (request.offset + request.length > file_.size()) {
        throw std::logic_error("request past the end of the file");
      }
      std::memset(request.buffer, 0xA5, request.length);
      in_flight_.push_back(request);
      ++submitted_;
      submitted_bytes_ += request.length;
      offsets_.push_back(request.offset);
    }
  }

  std::size_t reap(std::size_t min_completions, std::span<IoCompletion> out) override {
    if (in_flight_.size() < depth_) ++reaps_below_depth_;
    ++reaps_;
    // Completes a pseudo-random number (>= min) of pseudo-randomly chosen requests.
    const std::size_t most = std::min({in_flight_.size(), out.size(), max_per_reap_});
    const std::size_t count =
        std::max<std::size_t>(std::min(min_completions, most), 1 + random_() % most);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t pick = random_() % in_flight_.size();
      const IoRequest request = in_flight_[pick];
      in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(pick));
      buffers_in_flight_.erase(request.buffer);
      std::memcpy(request.buffer, file_.data() + request.offset, request.length);
      out[i] = {request.tag, static_cast<std::int64_t>(request.length)};
    }
    completed_ += count;
    return count;
  }

  std::vector<std::byte> file_;
  std::uint64_t submitted_ = 0, submitted_bytes_ = 0, completed_ = 0;
  std::uint64_t reaps_ = 0, reaps_below_depth_ = 0;
  std::vector<std::uint64_t> offsets_;

 private:
  std::uint32_t depth_;
  std::size_t max_per_reap_;
  std::deque<IoRequest> in_flight_;
  std::set<void*> buffers_in_flight_;
  std::mt19937_64 random_{7};
};

IoLoopConfig read_config(bool random, std::uint64_t region, std::uint64_t max_bytes) {
  IoLoopConfig config;
  config.op = IoOp::read;
  config.random = random;
  config.block_size = 4096;
  config.queue_depth = 32;
  config.region_bytes = region;
  config.max_bytes = max_bytes;
  config.pattern_rank = kRank;
  config.file_label = "memory";
  return config;
}

TEST(IoLoop, EveryRandomReadCountedOnceAndVerifiedBeforeItsBufferIsReused) {
  for (const std::size_t per_reap : {std::size_t{1}, std::size_t{5}, std::size_t{32}}) {
    MemoryEngine engine(32, 1 << 20, per_reap);
    const IoLoopResult result = run_io_loop(engine, 0, read_config(true, 1 << 20, 4 << 20));
    EXPECT_EQ(result.ops, 1024u) << per_reap << " a reap";
    EXPECT_EQ(engine.submitted_, result.ops) << per_reap << " a reap";
    EXPECT_EQ(engine.completed_, result.ops) << per_reap << " a reap";
    EXPECT_EQ(result.bytes, engine.submitted_bytes_) << per_reap << " a reap";
    EXPECT_EQ(result.bytes, 4u << 20) << per_reap << " a reap";
    EXPECT_EQ(result.latency_ns.count(), result.ops) << per_reap << " a reap";
    // A buffer resubmitted before its block was checked would hold another block's data.
    EXPECT_EQ(result.wrong_bytes, 0u) << per_reap << " a reap";
    EXPECT_FALSE(result.first_bad_offset) << per_reap << " a reap";
    // The queue is full whenever the loop waits, but for the drain after the last submission
    // (at most 32 reaps).
    EXPECT_LE(engine.reaps_below_depth_, 32u) << per_reap << " a reap";
    EXPECT_EQ(result.queue_depth, 32u);
  }
}

TEST(IoLoop, ACorruptedBlockIsFoundAtItsOffsetThoughItsBufferWentBackInFlight) {
  MemoryEngine engine(32, 1 << 20, 4);
  engine.file_[5 * 4096 + 100] ^= std::byte{0x40};
  const IoLoopResult result = run_io_loop(engine, 0, read_config(false, 1 << 20, 1 << 20));
  EXPECT_EQ(result.ops, 256u);
  EXPECT_EQ(result.wrong_bytes, 1u);
  ASSERT_TRUE(result.first_bad_offset);
  EXPECT_EQ(*result.first_bad_offset, 5u * 4096 + 100);
}

TEST(IoLoop, RandomReadsVisitEveryBlockOncePerPass) {
  MemoryEngine engine(32, 1 << 20, 7);
  const IoLoopResult result = run_io_loop(engine, 0, read_config(true, 1 << 20, 3 << 20));
  ASSERT_EQ(engine.offsets_.size(), 3u * 256u);
  for (std::size_t pass = 0; pass < 3; ++pass) {
    std::map<std::uint64_t, int> visits;
    for (std::size_t i = pass * 256; i < (pass + 1) * 256; ++i) ++visits[engine.offsets_[i]];
    EXPECT_EQ(visits.size(), 256u) << "pass " << pass;
    EXPECT_EQ(visits.begin()->first, 0u) << "pass " << pass;
    EXPECT_EQ(visits.rbegin()->first, 255u * 4096) << "pass " << pass;
  }
  EXPECT_EQ(result.wrong_bytes, 0u);
}

TEST(IoLoop, WritesNeedNoSpareBuffersAndStayWithinTheDepth) {
  MemoryEngine engine(8, 1 << 20, 3);
  IoLoopConfig config = read_config(false, 1 << 20, 2 << 20);
  config.op = IoOp::write;
  config.queue_depth = 8;
  const IoLoopResult result = run_io_loop(engine, 0, config);
  EXPECT_EQ(result.ops, 512u);
  EXPECT_EQ(engine.completed_, 512u);
  EXPECT_EQ(result.bytes, 2u << 20);
}

}  // namespace
}  // namespace fabcheck
