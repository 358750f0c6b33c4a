// NullEngine: completes every request at once without touching any file (fio's null engine), to
// test and time the harness itself.
#pragma once

#include <deque>

#include "storage/io_engine.hpp"

namespace fabcheck {

class NullEngine final : public IoEngine {
 public:
  explicit NullEngine(std::uint32_t queue_depth) : queue_depth_(queue_depth) {}
  std::string name() const override { return "null"; }
  IoEngineCaps caps() const override { return {.asynchronous = true, .touches_files = false}; }
  // Touches nothing: the descriptor (which may be none) is closed, a handle returned.
  int adopt(UniqueFd file) override;
  // Each request completes with its full length (0 for fsync).
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::size_t min_completions, std::span<IoCompletion> out) override;
  void close(int file) override;
  std::uint32_t queue_depth() const override { return queue_depth_; }

  // Requests submitted so far, for tests of the harness.
  std::uint64_t submitted() const { return submitted_; }
  std::size_t open_files() const { return open_files_; }

 private:
  std::uint32_t queue_depth_;
  std::deque<IoCompletion> done_;
  std::uint64_t submitted_ = 0;
  int next_handle_ = 0;
  std::size_t open_files_ = 0;
};

}  // namespace fabcheck
