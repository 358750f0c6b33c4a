// The sentinel process: signals passed on to the rank, the rank's state (running, stopped, gone),
// its steps and progress reported to the watchdog, and the end of the run carried out.
#include "bench/core/sentinel_process.hpp"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "bench/core/watch_channel.hpp"
#include "bench/core/watch_hub.hpp"
#include "bench/core/world.hpp"
#include "bench/sys/launcher.hpp"
#include "bench/sys/procfs.hpp"
#include "bench/sys/timer.hpp"
#include "results/run_writer.hpp"

namespace fabcheck {
namespace {

constexpr int kTick_ms = 100;
constexpr double kReportInterval_s = 0.5;
constexpr double kRequestAnswer_s = 2;   // how long a request to end waits for the watchdog's echo
constexpr double kUsageErrorHold_s = 3;  // how long another rank's usage error waits for rank 0's

std::string signal_text(int signal_number) {
  const char* abbreviation = sigabbrev_np(signal_number);
  return abbreviation ? std::string("SIG") + abbreviation
                      : "signal " + std::to_string(signal_number);
}

// How a rank that did not exit by itself went.
std::string death_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int signal_number = WTERMSIG(wait_status);
    std::string text = "was killed by " + signal_text(signal_number);
    if (signal_number == SIGKILL)
      text += " (the kernel's out-of-memory killer sends SIGKILL: see dmesg)";
    if (WCOREDUMP(wait_status)) text += ", core dumped";
    return text;
  }
  return "exited with code " + std::to_string(WEXITSTATUS(wait_status)) +
         " before finishing (MPI or the launcher ended it)";
}

std::string step_text(const std::optional<RankStep>& step) {
  if (!step || step->label[0] == '\0') return "";
  return std::string(" in step \"") + step->label + "\"";
}

class Sentinel {
 public:
  Sentinel(pid_t rank_pid, int launcher_rank, pid_t launcher, RankStatus& status,
           SentinelLimits limits)
      : rank_pid_(rank_pid),
        rank_(launcher_rank),
        host_(local_hostname()),
        launcher_(launcher),
        status_(status),
        limits_(limits) {
    const std::string environment = own_environment();
    job_ = launcher_job_of(environment);
    own_job_rank_ = launcher_rank_of(environment);
  }

  [[noreturn]] void run() {
    const sigset_t set = sentinel_signals();
    signal_fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    while (true) {
      pollfd wait{signal_fd_, POLLIN, 0};
      ::poll(&wait, signal_fd_ >= 0 ? 1 : 0, kTick_ms);
      take_signals();
      reap();
      const double now = now_seconds();
      if (!launcher_lost_ && getppid() != launcher_) {
        launcher_lost_ = true;
        begin_end(Ending::interrupted,
                  name() + ": its launcher (mpirun, srun or the shell) is gone", now, true);
      }
      follow_identity(now);
      report(now);
      if (!ending_) check_rank(now);
      if (ending_) carry_out_end(now);
    }
  }

 private:
  std::string name() const { return "rank " + std::to_string(rank_) + " (" + host_ + ")"; }
  bool is_root() const { return identified_ && rank_ == 0; }

  void take_signals() {
    signalfd_siginfo info{};
    while (signal_fd_ >= 0 && ::read(signal_fd_, &info, sizeof(info)) == sizeof(info)) {
      const int signal_number = static_cast<int>(info.ssi_signo);
      if (signal_number == SIGCHLD || signal_number == SIGPIPE) continue;
      // Passed on: the launcher's SIGCONT and SIGTERM when it ends the job, a user's SIGINT.
      if (rank_alive_) {
        ::kill(rank_pid_, signal_number);
      } else if (done_ && signal_number != SIGCONT) {
        exit_with(done_code_);  // the launcher ends the job while a usage error waits: said
      }
    }
  }

  void reap() {
    int wait_status = 0;
    while (rank_alive_) {
      const pid_t got = ::waitpid(rank_pid_, &wait_status, WNOHANG | WUNTRACED | WCONTINUED);
      if (got <= 0) break;
      if (WIFSTOPPED(wait_status)) {
        if (!rank_stopped_) stopped_since_ = now_seconds();
        rank_stopped_ = true;
      } else if (WIFCONTINUED(wait_status)) {
        rank_stopped_ = false;
      } else {
        rank_alive_ = false;
        rank_stopped_ = false;
        wait_status_ = wait_status;
      }
    }
  }

  // Once MPI has said which rank this is: rank 0's sentinel starts the watchdog, the others
  // connect to it when their rank has learnt where it listens.
  void follow_identity(double now) {
    if (!identified_) {
      const int rank = status_.rank.load();
      if (rank < 0) return;
      identified_ = true;
      rank_ = rank;
      if (rank_ == 0) {
        try {
          hub_ = std::make_unique<WatchHub>(std::max(1, status_.size.load()), limits_.silent_s);
          hub_->name_rank(0, host_);
          status_.watch_endpoint.store(hub_->endpoint());
          status_.watch_state.store(1);
        } catch (const std::exception& error) {
          status_.watch_problem.store(error.what());
          status_.watch_state.store(2);
        }
      }
    }
    if (rank_ == 0 || client_ || watch_tried_) return;
    const std::string endpoint = status_.watch_endpoint.load();
    if (endpoint.empty()) return;
    watch_tried_ = true;
    std::istringstream words(endpoint);
    std::string port;
    std::string root_host;
    words >> port >> root_host;
    try {
      client_ = std::make_unique<WatchClient>(endpoint, root_host == host_);
      WatchMessage hello;
      hello.kind = WatchMessage::hello;
      hello.rank = rank_;
      hello.text = host_;
      client_->send(hello);
      root_heard_ = now;
      root_host_ = root_host;
      status_.watch_state.store(1);
    } catch (const std::exception& error) {
      status_.watch_problem.store(error.what());
      status_.watch_state.store(2);
    }
  }

  // The rank's checkpoints and progress to the watchdog; the watchdog's word back.
  void report(double now) {
    const auto step = status_.step.load();
    if (step) last_step_ = step;
    if (identified_ && step && step->phase >= 0 && step->phase != reported_phase_) {
      reported_phase_ = step->phase;
      if (hub_) {
        hub_->arrive(rank_, step->phase, step->label, step->timeout_s, now);
      } else if (client_) {
        WatchMessage arrival;
        arrival.kind = WatchMessage::arrival;
        arrival.rank = rank_;
        arrival.phase = step->phase;
        arrival.timeout_s = step->timeout_s;
        arrival.text = step->label;
        client_->send(arrival);
      }
    }
    if (now - last_report_ >= kReportInterval_s) {
      last_report_ = now;
      const std::uint64_t operations = status_.progress.load(std::memory_order_relaxed);
      if (hub_) {
        hub_->progress(rank_, operations, now);
        hub_->heartbeat();
      } else if (client_) {
        WatchMessage progress;
        progress.kind = WatchMessage::progress;
        progress.rank = rank_;
        progress.operations = operations;
        client_->send(progress);
      }
    }
    if (hub_) {
      if (auto decision = hub_->poll(now); decision && !ending_)
        begin_end(decision->kind, decision->reason, now, true);
    }
    if (client_) {
      const bool open = client_->poll([&](const WatchMessage& message) {
        root_heard_ = now;
        if (message.kind == WatchMessage::end && !ending_)
          begin_end(static_cast<Ending>(message.phase), message.text, now, false);
      });
      if (!open) {
        client_.reset();
        if (!ending_ && !done_) {
          begin_end(Ending::failed,
                    "lost the watchdog on rank 0 (" + root_host_ +
                        "): its connection closed before the run finished (the host or its "
                        "processes are gone)",
                    now, true);
        }
      } else if (!ending_ && now - root_heard_ > limits_.silent_s) {
        begin_end(Ending::failed,
                  "the watchdog on rank 0 (" + root_host_ + ") not heard from for " +
                      seconds_text(now - root_heard_) +
                      ": its host is frozen, the network to it is down, or it is stopped",
                  now, true);
      }
    }
  }

  // Before MPI is up, a rank whose sentinel has not started yet (it is stopped in its first
  // moments) has nobody to report it: the sentinels of the job's other ranks on this host look for
  // it.
  void check_local_peers(double now) {
    if (job_.empty() || now - last_peer_scan_ < 1) return;
    last_peer_scan_ = now;
    std::map<pid_t, double> still_stopped;
    for (const JobProcess& peer : job_processes_on_this_host(job_)) {
      if (peer.pid == rank_pid_ || peer.pid == ::getpid()) continue;
      if (peer.rank.empty() || peer.rank == own_job_rank_) continue;
      if (!is_stopped_state(process_state(peer.pid))) continue;
      const auto seen = stopped_peers_.find(peer.pid);
      const double since = seen == stopped_peers_.end() ? now : seen->second;
      still_stopped[peer.pid] = since;
      if (now - since >= limits_.stopped_s) {
        request_end(Ending::failed,
                    "rank " + peer.rank + " (" + host_ + ") stopped (SIGSTOP, or a debugger) for " +
                        seconds_text(now - since) +
                        " at start-up, before anything watched it: the run cannot start",
                    now);
        return;
      }
    }
    stopped_peers_.swap(still_stopped);
  }

  // The rules every sentinel applies to its own rank.
  void check_rank(double now) {
    if (rank_alive_) {
      if (last_step_ && last_step_->phase < 0 && now - last_step_->started_s >= limits_.stopped_s)
        check_local_peers(now);
      if (ending_) return;
      if (rank_stopped_ && now - stopped_since_ >= limits_.stopped_s) {
        request_end(Ending::failed,
                    name() + " stopped (SIGSTOP, or a debugger) for " +
                        seconds_text(now - stopped_since_) + step_text(last_step_),
                    now);
        return;
      }
      // Until its first checkpoint a rank has no watchdog but its sentinel: no margin then.
      const double margin = last_step_ && last_step_->phase < 0 ? 0 : limits_.backstop_s;
      if (last_step_ && last_step_->timeout_s > 0 &&
          now - last_step_->started_s > last_step_->timeout_s + margin) {
        request_end(Ending::failed,
                    "timeout: " + name() + " spent " + seconds_text(now - last_step_->started_s) +
                        step_text(last_step_) + " (its limit is " +
                        seconds_text(last_step_->timeout_s) + ") and no watchdog ended the run",
                    now);
      }
      return;
    }
    const int chosen = status_.exit_code.load();
    if (WIFEXITED(wait_status_) && chosen >= 0 && WEXITSTATUS(wait_status_) == chosen) {
      const std::string note = status_.exit_note.load();
      if (chosen == 3 && !note.empty()) {
        request_end(Ending::interrupted, name() + ": " + note, now);
        return;
      }
      finish(chosen, now);
      return;
    }
    request_end(Ending::failed, name() + " " + death_of(wait_status_) + step_text(last_step_), now);
  }

  // The rank exited by itself: tell the watchdog; rank 0's sentinel waits for every rank.
  void finish(int code, double now) {
    if (!done_) {
      done_ = true;
      done_code_ = code;
      done_at_ = now;
      if (client_) {
        WatchMessage done;
        done.kind = WatchMessage::done;
        done.rank = rank_;
        done.phase = code;
        client_->send(done);
      }
      if (hub_) hub_->done(rank_);
    }
    // A usage error (exit 2 before MPI) on a rank other than 0: rank 0 most likely has it too and
    // says it, and the launcher then ends the job; say it here only if that does not happen.
    const std::string note = status_.exit_note.load();
    if (code == 2 && !identified_ && rank_ != 0 && !note.empty()) {
      if (now - done_at_ < kUsageErrorHold_s) return;
      std::fprintf(stderr, "fabcheck: %s: %s\n", name().c_str(), note.c_str());
    }
    if (!hub_ || hub_->all_done() || now - done_at_ > limits_.startup_s) exit_with(code);
  }

  // Asks the watchdog to end the run (it tells every sentinel, this one included); ends it here
  // when there is no watchdog to ask or it does not answer.
  void request_end(Ending kind, const std::string& reason, double now) {
    if (hub_ || !client_) {
      begin_end(kind, reason, now, true);
      return;
    }
    if (requested_at_ < 0) {
      requested_at_ = now;
      WatchMessage request;
      request.kind = WatchMessage::end_request;
      request.rank = rank_;
      request.phase = static_cast<std::int32_t>(kind);
      request.text = reason;
      client_->send(request);
    } else if (now - requested_at_ > kRequestAnswer_s) {
      begin_end(kind, reason, now, true);
    }
  }

  void begin_end(Ending kind, const std::string& reason, double now, bool announce) {
    if (ending_) return;
    ending_ = EndDecision{kind, reason};
    ending_since_ = now;
    if (announce) {
      std::fprintf(stderr, "fabcheck: ending the run (exit code 3): %s\n", reason.c_str());
      std::fflush(stderr);
    }
    status_.set_ending(kind, reason);
    if (hub_) hub_->broadcast_end(*ending_);
  }

  // SIGCONT and SIGTERM: the rank writes its last words and exits 3; SIGKILL when it does not go
  // in time. Rank 0's sentinel writes the last words when its rank could not.
  void carry_out_end(double now) {
    if (rank_alive_) {
      if (!term_sent_) {
        term_sent_ = true;
        term_sent_at_ = now;
        ::kill(rank_pid_, SIGCONT);
        ::kill(rank_pid_, SIGTERM);
      } else if (!kill_sent_ && now - term_sent_at_ > limits_.exit_grace_s) {
        kill_sent_ = true;
        write_last_words();
        ::kill(rank_pid_, SIGKILL);
      }
      return;
    }
    write_last_words();
    // The watchdog gives the others a moment to hear the end from it before mpirun ends them.
    if (hub_ && !hub_->all_done() && now - ending_since_ < 0.5) return;
    exit_with(3);
  }

  void write_last_words() {
    if (!is_root() || !ending_) return;
    const std::string run_dir = status_.run_dir.load();
    if (run_dir.empty() || !status_.claim_last_words(RankStatus::by_sentinel)) return;
    try {
      const FileIdentity made{status_.run_dir_device.load(), status_.run_dir_inode.load()};
      mark_run_incomplete(run_dir, made, ending_->reason, ending_->kind == Ending::failed);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabcheck: could not mark %s incomplete: %s\n", run_dir.c_str(),
                   error.what());
    }
  }

  [[noreturn]] void exit_with(int code) {
    hub_.reset();
    client_.reset();
    std::fflush(nullptr);
    _exit(code);
  }

  pid_t rank_pid_;
  int rank_;
  std::string host_;
  pid_t launcher_;
  RankStatus& status_;
  SentinelLimits limits_;
  int signal_fd_ = -1;
  bool launcher_lost_ = false;
  std::string job_;           // the launcher's job name (PMIX_NAMESPACE, Slurm job.step)
  std::string own_job_rank_;  // this rank's number in it
  double last_peer_scan_ = 0;
  std::map<pid_t, double> stopped_peers_;  // local ranks of the job seen stopped, since when

  bool rank_alive_ = true;
  bool rank_stopped_ = false;
  double stopped_since_ = 0;
  int wait_status_ = 0;
  std::optional<RankStep> last_step_;

  bool identified_ = false;
  int reported_phase_ = -1;
  double last_report_ = 0;
  std::unique_ptr<WatchHub> hub_;
  std::unique_ptr<WatchClient> client_;
  bool watch_tried_ = false;
  double root_heard_ = 0;
  std::string root_host_;

  bool done_ = false;
  int done_code_ = 0;
  double done_at_ = 0;
  double requested_at_ = -1;
  std::optional<EndDecision> ending_;
  double ending_since_ = 0;
  bool term_sent_ = false;
  double term_sent_at_ = 0;
  bool kill_sent_ = false;
};

}  // namespace

sigset_t sentinel_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal_number :
       {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGPIPE})
    sigaddset(&set, signal_number);
  return set;
}

std::string seconds_text(double seconds) {
  return std::to_string(static_cast<long long>(std::floor(seconds))) + " s";
}

void run_sentinel(pid_t rank_pid, int launcher_rank, pid_t launcher, RankStatus& status,
                  const SentinelLimits& limits) {
  Sentinel(rank_pid, launcher_rank, launcher, status, limits).run();
}

}  // namespace fabcheck
