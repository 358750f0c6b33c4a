// ProgressTicker: the ticking thread.
#include "bench/core/progress_ticker.hpp"

#include <chrono>

namespace fabcheck {

ProgressTicker::ProgressTicker(double interval_s, std::function<void()> tick) {
  const auto interval = std::chrono::duration<double>(interval_s);
  thread_ = std::thread([this, interval, tick = std::move(tick)] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
      tick();
      lock.lock();
    }
  });
}

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace fabcheck
