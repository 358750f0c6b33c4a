// UringEngine: io_uring through liburing, up to queue_depth requests in flight (built only when
// liburing is found; FABCHECK_HAVE_URING says so).
#pragma once

#include <memory>

#include "storage/file_table.hpp"
#include "storage/io_engine.hpp"

namespace fabcheck {

class UringEngine final : public IoEngine {
 public:
  // The ring belongs to the thread that creates the engine: submit and reap from that thread only.
  // Throws std::system_error when the kernel refuses a ring (io_uring disabled, seccomp).
  explicit UringEngine(std::uint32_t queue_depth);
  ~UringEngine() override;
  std::string name() const override { return "io_uring"; }
  IoEngineCaps caps() const override { return {.asynchronous = true, .touches_files = true}; }
  int adopt(UniqueFd file) override { return files_.adopt(std::move(file)); }
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::size_t min_completions, std::span<IoCompletion> out) override;
  void close(int file) override { files_.close(file); }
  std::uint32_t queue_depth() const override { return queue_depth_; }

  // True when this kernel gives this process a ring (a one-entry ring is set up and torn down).
  static bool kernel_supports();

 private:
  struct Ring;
  std::uint32_t queue_depth_;
  std::unique_ptr<Ring> ring_;
  FileTable files_;
  // Hands the prepared requests to the kernel.
  void flush();

  std::size_t in_flight_ = 0;    // submitted, not yet reaped
  std::size_t unsubmitted_ = 0;  // prepared, not yet handed to the kernel
};

}  // namespace fabcheck
