// The sentinel process (sentinel.hpp starts it): its loop over the rank's state, its reports to the
// watchdog and the watchdog's word back, and the end of the run carried out.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

#include "bench/core/rank_status.hpp"
#include "bench/core/sentinel.hpp"

namespace fabcheck {

// The signals the sentinel takes through its signalfd: blocked from before the fork, so none is
// lost in between.
sigset_t sentinel_signals();

// "12 s": whole seconds, rounded down, as the sentinel's messages say them.
std::string seconds_text(double seconds);

// Watches the rank `rank_pid` (launched as `launcher_rank` by `launcher`) through `status` until
// the run ends; exits with the rank's own exit code, or 3 when the run was ended.
[[noreturn]] void run_sentinel(pid_t rank_pid, int launcher_rank, pid_t launcher,
                               RankStatus& status, const SentinelLimits& limits);

}  // namespace fabcheck
