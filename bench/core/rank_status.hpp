// RankStatus: a page of memory shared by a rank and its sentinel (sentinel.hpp), the process that
// watches it from outside. The rank writes the step it is in, its progress, its run directory and
// how it ends; the sentinel writes where the watchdog listens and why it is ending the run. Every
// field is lock-free, so a rank that is stopped or killed half-way through a write never blocks
// its sentinel (a torn text is read as "unchanged").
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

namespace fabcheck {

// A trivially copyable value behind a sequence lock: writers (any process) take it with a
// compare-and-swap, readers retry a bounded number of times and get nothing while a write is torn.
template <typename T>
class Seqlocked {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Each field has its writers in one process, so a writer never waits for a stopped one.
  void store(const T& value) {
    std::uint32_t sequence = sequence_.load(std::memory_order_relaxed) & ~1u;
    while (!sequence_.compare_exchange_weak(sequence, sequence + 1, std::memory_order_acquire))
      sequence &= ~1u;  // odd: another writer of this process is half-way; wait for it
    std::atomic_thread_fence(std::memory_order_release);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    for (std::size_t i = 0; i < sizeof(T); ++i)
      bytes_[i].store(bytes[i], std::memory_order_relaxed);
    sequence_.store(sequence + 2, std::memory_order_release);
  }

  std::optional<T> load() const {
    for (int tries = 0; tries < 1000; ++tries) {
      const std::uint32_t before = sequence_.load(std::memory_order_acquire);
      if ((before & 1u) != 0) continue;
      T value;
      auto* bytes = reinterpret_cast<unsigned char*>(&value);
      for (std::size_t i = 0; i < sizeof(T); ++i)
        bytes[i] = bytes_[i].load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (sequence_.load(std::memory_order_relaxed) == before) return value;
    }
    return std::nullopt;
  }

  // Changes with every completed store (0 before the first).
  std::uint32_t version() const { return sequence_.load(std::memory_order_acquire) / 2; }

 private:
  std::atomic<std::uint32_t> sequence_{0};
  std::atomic<unsigned char> bytes_[sizeof(T)] = {};
};

// Text of at most N-1 bytes (longer text is cut).
template <std::size_t N>
struct FixedText {
  char bytes[N] = {};
  static FixedText of(const std::string& text) {
    FixedText result;
    std::memcpy(result.bytes, text.data(), std::min(text.size(), N - 1));
    return result;
  }
  std::string str() const { return std::string(bytes, strnlen(bytes, N)); }
};

template <std::size_t N>
class SharedText {
 public:
  void store(const std::string& text) { value_.store(FixedText<N>::of(text)); }
  // Empty when never written (or torn).
  std::string load() const {
    const auto value = value_.load();
    return value ? value->str() : std::string();
  }

 private:
  Seqlocked<FixedText<N>> value_;
};

// The step a rank is in: a checkpoint (phase >= 0, the same numbering on every rank) or a step of
// its own before the first checkpoint (phase -1: start-up).
struct RankStep {
  std::int32_t phase = -1;
  double timeout_s = 0;
  double started_s = 0;  // now_seconds() (CLOCK_MONOTONIC: the same clock in both processes)
  char label[120] = {};
};

// How the run is being ended early, as decided by a sentinel (or a signal).
enum class Ending : std::int32_t {
  none = 0,
  interrupted = 1,  // a signal (to mpirun, to a rank, or the launcher lost)
  failed = 2,       // a rank stopped, died, or a step outlived its limit
};

struct RankStatus {
  // The sentinel watching this rank; 0 when none does.
  std::atomic<std::int32_t> sentinel_pid{0};

  // Written by the rank.
  std::atomic<std::uint64_t> progress{0};  // World::mark_progress
  Seqlocked<RankStep> step;
  std::atomic<std::int32_t> rank{-1};  // after world set-up
  std::atomic<std::int32_t> size{0};
  SharedText<4096> run_dir;  // rank 0, once the run directory exists
  // Which directory it is (st_dev, st_ino; written before run_dir): the sentinel writes its last
  // words only into that one, never into whatever the name leads to by then.
  std::atomic<std::uint64_t> run_dir_device{0};
  std::atomic<std::uint64_t> run_dir_inode{0};
  // The exit code the rank chose (-1 until it exits by itself) and, for an exit 3 on a signal,
  // why ("interrupted by SIGTERM").
  std::atomic<std::int32_t> exit_code{-1};
  SharedText<1024> exit_note;

  // The watchdog's address: on rank 0 written by its sentinel for the rank to broadcast; on the
  // others written by the rank for its sentinel to connect to. watch_state: 0 not yet, 1 in
  // place, 2 failed (watch_problem says why); written by the sentinel.
  SharedText<1024> watch_endpoint;
  std::atomic<std::int32_t> watch_state{0};
  SharedText<1024> watch_problem;

  // Written by the sentinel before it tells the rank to end (SIGTERM).
  std::atomic<std::int32_t> ending{static_cast<std::int32_t>(Ending::none)};
  SharedText<2048> ending_reason;

  // Who writes the run's last words (the incomplete summary and its one ERROR): the first to claim
  // them, once. Every later claim, the same claimant's too, is refused: the end of a run is one
  // event, recorded once however often the rank's cleanup or the sentinel's loop come back to it.
  enum : std::int32_t { nobody = 0, by_rank = 1, by_sentinel = 2 };
  std::atomic<std::int32_t> last_words{nobody};

  void begin_step(std::int32_t phase, const std::string& label, double timeout_s);
  bool claim_last_words(std::int32_t who) {
    std::int32_t expected = nobody;
    return last_words.compare_exchange_strong(expected, who);
  }
  void set_ending(Ending kind, const std::string& reason) {
    ending_reason.store(reason);
    ending.store(static_cast<std::int32_t>(kind), std::memory_order_release);
  }
  Ending ending_kind() const { return static_cast<Ending>(ending.load(std::memory_order_acquire)); }
};

// This process's status: the page shared with its sentinel when one watches it, otherwise a page
// of its own that nobody reads.
RankStatus& rank_status();

// Maps a shared page and makes it rank_status() (call before fork; both processes keep it).
RankStatus& share_rank_status();

}  // namespace fabcheck
