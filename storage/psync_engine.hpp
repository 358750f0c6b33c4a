// PsyncEngine: pread/pwrite/fsync, one request at a time (fio's psync); always available.
#pragma once

#include <deque>

#include "storage/file_table.hpp"
#include "storage/io_engine.hpp"

namespace fabcheck {

class PsyncEngine final : public IoEngine {
 public:
  explicit PsyncEngine(std::uint32_t queue_depth) : queue_depth_(queue_depth) {}
  std::string name() const override { return "psync"; }
  IoEngineCaps caps() const override { return {.asynchronous = false, .touches_files = true}; }
  int adopt(UniqueFd file) override { return files_.adopt(std::move(file)); }
  // Performs each request before returning; their completions wait for reap.
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::size_t min_completions, std::span<IoCompletion> out) override;
  void close(int file) override { files_.close(file); }
  std::uint32_t queue_depth() const override { return queue_depth_; }

 private:
  std::uint32_t queue_depth_;
  FileTable files_;
  std::deque<IoCompletion> done_;
};

}  // namespace fabcheck
