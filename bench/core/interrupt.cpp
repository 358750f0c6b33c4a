// SIGINT/SIGTERM/SIGHUP handling on a dedicated thread (sigwait), so cleanups run as ordinary code.
#include "bench/core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "bench/core/rank_status.hpp"

namespace fabcheck {
namespace {

std::mutex g_mutex;
std::map<int, std::function<void()>> g_cleanups;  // handle -> cleanup; run highest handle first
int g_next_handle = 1;
std::string g_reason;
bool g_failure = false;

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

const char* signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "SIGTERM";
  }
}

[[noreturn]] void wait_for_interrupt() {
  const sigset_t set = interrupt_signals();
  int signal_number = 0;
  while (sigwait(&set, &signal_number) != 0) {
  }
  RankStatus& status = rank_status();
  const Ending ending = status.ending_kind();
  std::map<int, std::function<void()>> cleanups;
  std::string reason;
  {
    std::lock_guard lock(g_mutex);
    g_failure = ending == Ending::failed;
    g_reason = ending != Ending::none ? status.ending_reason.load()
                                      : std::string("interrupted by ") + signal_name(signal_number);
    reason = g_reason;
    cleanups.swap(g_cleanups);
  }
  if (ending == Ending::none) {
    std::fprintf(stderr, "fabcheck: %s received; cleaning up and exiting with code 3\n",
                 signal_name(signal_number));
  }
  for (auto it = cleanups.rbegin(); it != cleanups.rend(); ++it) {
    try {
      it->second();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabcheck: cleanup failed: %s\n", error.what());
    }
  }
  std::fflush(nullptr);
  status.exit_note.store(reason);
  status.exit_code.store(3);
  _exit(3);
}

}  // namespace

void install_interrupt_handling() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = interrupt_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // A peer rank killed closes its TCP connections: a write to one must fail (EPIPE, which MPI
    // or the watchdog turns into the dead rank's name), not kill this rank by SIGPIPE before the
    // dead rank's sentinel is heard (the run then named this rank: cluster_sigkill, under load).
    // Child processes get the default back before exec (bench/sys/child_process.cpp).
    ::signal(SIGPIPE, SIG_IGN);
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

std::string interruption_reason() {
  std::lock_guard lock(g_mutex);
  return g_reason;
}

bool interrupted_by_failure() {
  std::lock_guard lock(g_mutex);
  return g_failure;
}

}  // namespace fabcheck
