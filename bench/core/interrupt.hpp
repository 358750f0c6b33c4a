// SIGINT/SIGTERM/SIGHUP handling: a signal thread runs registered cleanups (e.g. removing scratch
// files) and the run's last words (summary marked incomplete), then ends the process with exit
// code 3. The same path ends a rank when its sentinel (sentinel.hpp) ends the run: the sentinel
// writes why into the shared RankStatus and sends SIGTERM.
#pragma once

#include <functional>
#include <string>

namespace fabcheck {

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (call first thing in main, before any
// thread is started, so every thread inherits the mask) and starts the thread that waits for them.
void install_interrupt_handling();

// Cleanups run in reverse order of registration, on the signal thread, then the process exits 3.
// Returns a handle for unregister_cleanup. Safe to call from any thread.
int register_cleanup(std::function<void()> cleanup);
void unregister_cleanup(int handle);

// RAII form: registered while alive.
class ScopedCleanup {
 public:
  explicit ScopedCleanup(std::function<void()> cleanup)
      : handle_(register_cleanup(std::move(cleanup))) {}
  ~ScopedCleanup() { unregister_cleanup(handle_); }
  ScopedCleanup(const ScopedCleanup&) = delete;
  ScopedCleanup& operator=(const ScopedCleanup&) = delete;

 private:
  int handle_;
};

// Why the run is being ended, once a signal arrived: the sentinel's reason ("rank 1 (node-b)
// stopped ...") or "interrupted by SIGTERM"; empty otherwise.
std::string interruption_reason();
// True when the run ends because something failed (a rank stopped or died, a step outlived its
// limit), not because someone interrupted it.
bool interrupted_by_failure();

}  // namespace fabcheck
