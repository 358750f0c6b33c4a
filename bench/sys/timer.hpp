// Wall-clock timing on the monotonic clock, and UTC time stamps.
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace fabcheck {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Stopwatch {
 public:
  Stopwatch() : start_(now_seconds()) {}
  double elapsed_s() const { return now_seconds() - start_; }
  void restart() { start_ = now_seconds(); }

 private:
  double start_;
};

// Current UTC time, ISO 8601 with seconds ("2026-11-30T06:09:26Z").
std::string utc_timestamp();
// The same for the time `at` (a log line's, a file's).
std::string utc_timestamp(std::time_t at);
// Compact form for directory names ("20261130T060926Z").
std::string utc_timestamp_compact();

}  // namespace fabcheck
