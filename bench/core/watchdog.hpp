// Watchdog: a thread that polls a HangDetector and, when a step is overdue, reports it and ends the
// run (exit code 3). The World implementations own one on the root.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/core/hang_detector.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {

class Watchdog {
 public:
  // `poll` runs on the watchdog thread before each check (the MPI world receives other ranks'
  // arrivals there). `terminate` ends the whole run after `on_hang` has reported.
  Watchdog(std::vector<std::string> rank_names, HangHandler on_hang, std::function<void()> poll,
           std::function<void()> terminate);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void start();
  void arrive(int rank, int phase, const std::string& label, double timeout_s);
  void progress(int rank, std::uint64_t operations);
  bool all_reached(int phase);
  // Stops the thread once every rank has reached `phase` (or the step is overdue).
  void stop_when_all_reached(int phase);

 private:
  void loop();

  std::mutex mutex_;
  HangDetector detector_;
  HangHandler on_hang_;
  std::function<void()> poll_;
  std::function<void()> terminate_;
  std::atomic<bool> stop_{false};
  std::atomic<int> final_phase_{-1};
  std::thread thread_;
};

}  // namespace fabcheck
