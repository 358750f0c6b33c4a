// ProgressTicker: a thread that calls `tick` every `interval_s` until it is destroyed (the
// console's clock while a probe runs and reports nothing).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace fabcheck {

class ProgressTicker {
 public:
  ProgressTicker(double interval_s, std::function<void()> tick);
  ~ProgressTicker();  // stops the thread and joins it; no tick begins after it returns
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fabcheck
