// Starting the sentinel: the fork that makes the calling process the sentinel and its child the
// rank, and the rank's side (its signal handling, resuming a stopped sentinel, its exit code).
#include "bench/core/sentinel.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "bench/core/interrupt.hpp"
#include "bench/core/rank_status.hpp"
#include "bench/core/sentinel_process.hpp"
#include "bench/sys/procfs.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

// In the rank: a stopped sentinel would never report the rank's exit (the launcher would wait for
// it forever), so the rank resumes it, saying so.
void resume_sentinel_when_stopped(pid_t sentinel, double stopped_s) {
  std::thread([sentinel, stopped_s] {
    double stopped_since = -1;
    while (::getppid() == sentinel) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      if (!is_stopped_state(process_state(sentinel))) {
        stopped_since = -1;
        continue;
      }
      const double now = now_seconds();
      if (stopped_since < 0) stopped_since = now;
      if (now - stopped_since >= stopped_s) {
        std::fprintf(stderr,
                     "fabcheck: the sentinel of this rank (pid %d) was stopped for %s; "
                     "resuming it\n",
                     static_cast<int>(sentinel), seconds_text(now - stopped_since).c_str());
        ::kill(sentinel, SIGCONT);
        stopped_since = -1;
      }
    }
  }).detach();
}

}  // namespace

void start_sentinel(int launcher_rank, const SentinelLimits& limits) {
  RankStatus* status = nullptr;
  try {
    status = &share_rank_status();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fabcheck: warning: %s; this rank runs unwatched\n", error.what());
    install_interrupt_handling();
    return;
  }
  status->begin_step(-1, "start-up", limits.startup_s);
  const sigset_t set = sentinel_signals();
  sigset_t original;
  pthread_sigmask(SIG_BLOCK, &set, &original);
  std::fflush(nullptr);
  const pid_t launcher = ::getppid();
  const pid_t sentinel = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    pthread_sigmask(SIG_SETMASK, &original, nullptr);
    std::fprintf(stderr,
                 "fabcheck: warning: cannot start the sentinel (fork: %s); this rank "
                 "runs unwatched\n",
                 std::strerror(errno));
    install_interrupt_handling();
    return;
  }
  if (child == 0) {
    pthread_sigmask(SIG_SETMASK, &original, nullptr);
    install_interrupt_handling();
    status->sentinel_pid.store(sentinel);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != sentinel) ::kill(::getpid(), SIGTERM);  // it died before prctl
    resume_sentinel_when_stopped(sentinel, limits.stopped_s);
    return;
  }
  ::prctl(PR_SET_NAME, "fabcheck-watch");
  if (std::FILE* adjust = std::fopen("/proc/self/oom_score_adj", "w")) {
    std::fputs("-1000", adjust);  // the OOM killer takes the rank, and the sentinel names it
    std::fclose(adjust);
  }
  run_sentinel(child, launcher_rank, launcher, *status, limits);
}

void rank_exiting(int code) {
  std::fflush(nullptr);
  rank_status().exit_code.store(code);
}

}  // namespace fabcheck
