// The sentinel: a small process that watches one rank from outside, from before MPI starts until
// after the rank has exited. SIGSTOP stops every thread of a process, so no thread inside a rank
// can report its own stop; its sentinel can. `fabcheck run` forks first thing: the parent becomes
// the sentinel (the launcher sees it as the rank, and gets its exit code), the child goes on as
// the rank and shares a RankStatus page with it.
//
// Every sentinel ends the run when its own rank stays stopped, dies, is interrupted, or outlives
// its step by far; the sentinels of ranks 1..N-1 connect to the one of rank 0 (WatchHub: the
// watchdog, which sees every rank's checkpoints) and the first reason to end the run reaches all
// of them. Ending the run: each sentinel writes the reason into its page and sends its rank
// SIGCONT and SIGTERM (the rank's signal thread writes the last words and exits 3), then SIGKILL
// if the rank does not go; rank 0's sentinel writes the incomplete summary itself when its rank
// cannot. Every sentinel then exits 3, so mpirun returns 3.
#pragma once

namespace fabcheck {

struct SentinelLimits {
  double stopped_s = 5;     // a rank stopped this long ends the run
  double silent_s = 10;     // a sentinel (or the watchdog) not heard from this long ends the run
  double exit_grace_s = 3;  // after SIGTERM, how long a rank has to write its last words and go
  double backstop_s = 30;   // past its step's limit by this much, a sentinel ends its rank alone
  double startup_s = 60;    // limit of start-up (MPI_Init and the watch channel), until the
                            // first checkpoint
};

// Forks. Returns in the child (the rank), with rank_status() shared with the sentinel, SIGINT,
// SIGTERM and SIGHUP handled (install_interrupt_handling) and a thread that resumes the sentinel
// if someone stops it. The parent never returns: it exits with the rank's exit code, or 3 when the
// run was ended. `launcher_rank` names the rank until MPI says. Without fork, returns unwatched
// (saying so on stderr).
void start_sentinel(int launcher_rank, const SentinelLimits& limits = {});

// The rank is about to exit by itself with `code` (call on every ordinary way out of main), so its
// sentinel does not take the exit for a death.
void rank_exiting(int code);

}  // namespace fabcheck
