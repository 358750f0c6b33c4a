// Watchdog thread: polls arrivals, reports the overdue step, ends the run.
#include "bench/core/watchdog.hpp"

#include <chrono>
#include <cstdio>

#include "bench/core/timer.hpp"

namespace fabcheck {

Watchdog::Watchdog(std::vector<std::string> rank_names, HangHandler on_hang,
                   std::function<void()> poll, std::function<void()> terminate)
    : detector_(std::move(rank_names)),
      on_hang_(std::move(on_hang)),
      poll_(std::move(poll)),
      terminate_(std::move(terminate)) {}

Watchdog::~Watchdog() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Watchdog::start() {
  thread_ = std::thread([this] { loop(); });
}

void Watchdog::arrive(int rank, int phase, const std::string& label, double timeout_s) {
  std::lock_guard lock(mutex_);
  detector_.arrive(rank, phase, label, timeout_s, now_seconds());
}

void Watchdog::progress(int rank, std::uint64_t operations) {
  std::lock_guard lock(mutex_);
  detector_.progress(rank, operations, now_seconds());
}

bool Watchdog::all_reached(int phase) {
  std::lock_guard lock(mutex_);
  return detector_.all_reached(phase);
}

void Watchdog::stop_when_all_reached(int phase) {
  final_phase_ = phase;
  if (thread_.joinable()) thread_.join();
}

void Watchdog::loop() {
  while (!stop_) {
    if (poll_) poll_();
    std::optional<std::string> hang;
    {
      std::lock_guard lock(mutex_);
      const int final_phase = final_phase_;
      if (final_phase >= 0 && detector_.all_reached(final_phase)) return;
      hang = detector_.overdue(now_seconds());
    }
    if (hang) {
      std::fprintf(stderr, "fabcheck: timeout: %s\n", hang->c_str());
      if (on_hang_) on_hang_(*hang);
      std::fflush(nullptr);
      terminate_();
      return;
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(100));  // fine enough for limits in seconds
  }
}

}  // namespace fabcheck
