// SIGINT/SIGTERM handling on a dedicated thread (sigwait), so cleanups run as ordinary code.
#include "bench/core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace fabcheck {
namespace {

std::mutex g_mutex;
std::map<int, std::function<void()>> g_cleanups;  // handle -> cleanup; run highest handle first
int g_next_handle = 1;
std::string g_signal_name;

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

[[noreturn]] void wait_for_interrupt() {
  const sigset_t set = interrupt_signals();
  int signal_number = 0;
  while (sigwait(&set, &signal_number) != 0) {
  }
  std::map<int, std::function<void()>> cleanups;
  {
    std::lock_guard lock(g_mutex);
    g_signal_name = signal_number == SIGINT ? "SIGINT" : "SIGTERM";
    cleanups.swap(g_cleanups);
  }
  std::fprintf(stderr, "fabcheck: %s received; cleaning up and exiting with code 3\n",
               signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  for (auto it = cleanups.rbegin(); it != cleanups.rend(); ++it) {
    try {
      it->second();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabcheck: cleanup failed: %s\n", error.what());
    }
  }
  std::fflush(nullptr);
  _exit(3);
}

}  // namespace

void install_interrupt_handling() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = interrupt_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(wait_for_interrupt).detach();
  });
}

int register_cleanup(std::function<void()> cleanup) {
  std::lock_guard lock(g_mutex);
  const int handle = g_next_handle++;
  g_cleanups.emplace(handle, std::move(cleanup));
  return handle;
}

void unregister_cleanup(int handle) {
  std::lock_guard lock(g_mutex);
  g_cleanups.erase(handle);
}

std::string interrupting_signal() {
  std::lock_guard lock(g_mutex);
  return g_signal_name;
}

}  // namespace fabcheck
