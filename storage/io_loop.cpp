// The timed I/O loop: slots of aligned buffers, requests kept queue_depth deep, reaped blocks
// verified while their replacements are in flight.
#include "storage/io_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "bench/sys/timer.hpp"
#include "storage/aligned_buffer.hpp"
#include "storage/data_pattern.hpp"
#include "storage/io_offsets.hpp"

namespace fabcheck {

namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

struct Slot {
  AlignedBuffer buffer;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  std::uint64_t submitted_ns = 0;
};

std::string describe_failure(const IoLoopConfig& config, const Slot& slot, std::int64_t result) {
  const char* verb = config.op == IoOp::write ? "write" : "read";
  std::string text = std::string(verb) + " of " + std::to_string(slot.length) +
                     " bytes at offset " + std::to_string(slot.offset) + " of " + config.file_label;
  if (result < 0) return text + " failed: " + std::strerror(static_cast<int>(-result));
  return text + " came back short: " + std::to_string(result) + " bytes";
}

}  // namespace

IoLoopResult run_io_loop(IoEngine& engine, int file, const IoLoopConfig& config) {
  if (config.op == IoOp::fsync) throw std::invalid_argument("run_io_loop: reads or writes only");
  if (config.block_size == 0 || config.region_bytes < config.block_size ||
      config.block_size > (1ull << 30)) {
    throw std::invalid_argument("run_io_loop: the region must hold at least one block of 1..1G");
  }
  const std::uint32_t depth = std::max<std::uint32_t>(
      1, std::min(config.queue_depth, engine.caps().asynchronous ? engine.queue_depth() : 1u));
  const bool verify = config.verify && engine.caps().touches_files && config.op == IoOp::read;
  const bool fill = config.op == IoOp::write;

  // A verified read keeps a second set of buffers: the blocks just reaped are checked while their
  // replacements are already in flight, so the device never waits for the check (fio, which does
  // not verify, resubmits right after reaping too). depth requests in flight plus at most depth
  // reaped and unchecked never need more than 2 * depth buffers.
  const std::uint32_t buffers = verify ? 2 * depth : depth;
  std::vector<Slot> slots;
  slots.reserve(buffers);
  for (std::uint32_t i = 0; i < buffers; ++i) {
    slots.push_back(Slot{AlignedBuffer(config.block_size), 0, 0, 0});
  }
  std::vector<std::uint32_t> free_slots;
  for (std::uint32_t i = buffers; i > 0; --i) free_slots.push_back(i - 1);

  IoOffsets offsets(config.random, config.block_size, config.region_bytes, config.seed);
  std::uint64_t issued_bytes = 0;
  std::uint32_t in_flight = 0;
  bool stopping = false;

  IoLoopResult result;
  result.queue_depth = depth;
  result.start_s = now_seconds();
  const double deadline = config.duration_s > 0 ? result.start_s + config.duration_s : 0;

  std::vector<IoRequest> batch;
  std::vector<IoCompletion> completions(depth);
  std::vector<std::uint32_t> unchecked;  // reaped, verified after the next submission
  batch.reserve(depth);
  unchecked.reserve(depth);
  while (true) {
    batch.clear();
    while (!stopping && in_flight + batch.size() < depth && !free_slots.empty()) {
      const std::uint32_t index = free_slots.back();
      free_slots.pop_back();
      Slot& slot = slots[index];
      const IoOffsets::Block block = offsets.next();
      slot.offset = block.offset;
      slot.length = block.length;
      if (fill) fill_pattern({slot.buffer.data(), slot.length}, config.pattern_rank, slot.offset);
      batch.push_back({config.op, file, slot.buffer.data(), slot.length, slot.offset, index});
      issued_bytes += slot.length;
      if (config.max_bytes > 0 && issued_bytes >= config.max_bytes) stopping = true;
    }
    if (!batch.empty()) {
      const std::uint64_t submit_ns = now_ns();
      for (const IoRequest& request : batch) slots[request.tag].submitted_ns = submit_ns;
      engine.submit(batch);
      in_flight += static_cast<std::uint32_t>(batch.size());
    }
    for (const std::uint32_t index : unchecked) {
      const Slot& slot = slots[index];
      const auto mismatch =
          verify_pattern({slot.buffer.data(), slot.length}, config.pattern_rank, slot.offset);
      if (mismatch) {
        result.wrong_bytes += mismatch->wrong_bytes;
        if (!result.first_bad_offset || mismatch->first_offset < *result.first_bad_offset) {
          result.first_bad_offset = mismatch->first_offset;
        }
      }
      free_slots.push_back(index);
    }
    unchecked.clear();
    if (in_flight == 0) break;
    const std::size_t reaped = engine.reap(1, completions);
    const std::uint64_t done_ns = now_ns();
    for (std::size_t i = 0; i < reaped; ++i) {
      const IoCompletion& completion = completions[i];
      const auto index = static_cast<std::uint32_t>(completion.tag);
      const Slot& slot = slots[index];
      if (completion.result != static_cast<std::int64_t>(slot.length)) {
        throw std::runtime_error(describe_failure(config, slot, completion.result));
      }
      result.latency_ns.record(done_ns - slot.submitted_ns);
      ++result.ops;
      result.bytes += slot.length;
      if (verify) {
        unchecked.push_back(index);
      } else {
        free_slots.push_back(index);
      }
    }
    in_flight -= static_cast<std::uint32_t>(reaped);
    result.end_s = static_cast<double>(done_ns) / 1e9;
    if (config.record_progress && reaped > 0) {
      result.progress.push_back({result.end_s - config.time_origin, result.bytes});
    }
    if (deadline > 0 && result.end_s >= deadline) stopping = true;
    if (config.stop != nullptr && config.stop->load(std::memory_order_relaxed)) stopping = true;
  }
  return result;
}

std::uint64_t bytes_done_by(const std::vector<ProgressPoint>& progress, double seconds) {
  std::uint64_t bytes = 0;
  for (const ProgressPoint& point : progress) {
    if (point.seconds > seconds) break;
    bytes = point.bytes;
  }
  return bytes;
}

}  // namespace fabcheck
