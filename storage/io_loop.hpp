// The one timed I/O loop every storage pattern uses: keeps queue_depth requests in flight over a
// region of a file, sequentially or at random block offsets (IoOffsets), fills written blocks with
// the data pattern and verifies every block read (while its replacement is already in flight), and
// times each request from submission to completion.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/io_engine.hpp"
#include "storage/latency_histogram.hpp"

namespace fabcheck {

struct IoLoopConfig {
  IoOp op = IoOp::read;  // read or write
  bool random = false;   // random block-aligned offsets, each block once a pass (fio's random map),
                         // instead of sequential (wrapping) ones
  std::uint64_t block_size = 1ull << 20;
  std::uint32_t queue_depth = 1;
  std::uint64_t region_bytes = 0;  // requests fall in [0, region_bytes)
  double duration_s = 0;           // stop issuing once this has passed (0: no time bound)
  std::uint64_t max_bytes = 0;     // stop issuing once this much was issued (0: no byte bound)
  int pattern_rank = 0;            // whose data pattern is written or expected
  bool verify = true;              // check every block read (skipped by engines that touch no file)
  std::uint64_t seed = 1;          // the random passes' orders
  std::string file_label;          // the file's path, for error and mismatch messages
  double time_origin = 0;          // now_seconds() value progress times are measured from
  bool record_progress = false;
  const std::atomic<bool>* stop = nullptr;  // stop issuing once another thread sets it
};

struct ProgressPoint {
  double seconds = 0;       // since config.time_origin
  std::uint64_t bytes = 0;  // completed so far
};

struct IoLoopResult {
  std::uint32_t queue_depth = 0;  // the depth actually kept (1 on a synchronous engine)
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  double start_s = 0;  // now_seconds() at the first submission
  double end_s = 0;    // now_seconds() at the last completion
  LatencyHistogram latency_ns;
  std::uint64_t wrong_bytes = 0;
  std::optional<std::uint64_t> first_bad_offset;
  std::vector<ProgressPoint> progress;

  double seconds() const { return end_s - start_s; }
  double gbps() const { return seconds() > 0 ? static_cast<double>(bytes) / seconds() / 1e9 : 0; }
  double iops() const { return seconds() > 0 ? static_cast<double>(ops) / seconds() : 0; }
};

// Throws std::runtime_error naming the file and offset when a request fails or comes back short.
// A verified read holds 2 * queue_depth buffers of block_size (the others queue_depth).
IoLoopResult run_io_loop(IoEngine& engine, int file, const IoLoopConfig& config);

// Bytes completed by `seconds` after the origin according to recorded progress (0 before the
// first point; the last point's bytes after it).
std::uint64_t bytes_done_by(const std::vector<ProgressPoint>& progress, double seconds);

}  // namespace fabcheck
