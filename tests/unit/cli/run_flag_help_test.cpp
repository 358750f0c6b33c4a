// --help of --iters, --warmup and --timeout: the defaults the run starts from (RunOptions' and each
// plan's), and what --timeout bounds (the watchdog's step with its margin, NCCL's operations).
#include "bench/cli/run_flag_help.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

TEST(RunFlagHelp, RunShowsItsDefaultsAndEachPlans) {
  EXPECT_EQ(iters_help(""),
            "Timed iterations per size (default 20; with --plan: gate 10, acceptance 20, sweep "
            "10, quick 5)");
  EXPECT_EQ(warmup_help(""),
            "Untimed warm-up iterations per size (default 5; with --plan: gate 3, acceptance 5, "
            "sweep 3, quick 2)");
}

TEST(RunFlagHelp, APlansCommandShowsThatPlansDefaults) {
  EXPECT_EQ(iters_help("gate"), "Timed iterations per size (default 10, plan gate's)");
  EXPECT_EQ(warmup_help("sweep"), "Untimed warm-up iterations per size (default 3, plan sweep's)");
}

TEST(RunFlagHelp, TimeoutSaysWhatItBounds) {
  EXPECT_EQ(timeout_help("gate"),
            "Seconds S one probe may take (default 30, plan gate's): a probe some rank has not "
            "finished S + 15 s after the first rank began it ends the run (exit 3, naming the "
            "ranks); an NCCL operation still running S s after the probe made its communicators "
            "is aborted (the probe errors)");
  EXPECT_NE(timeout_help("").find("(default 300; with --plan: gate 30, acceptance 600, sweep 300, "
                                  "quick 60)"),
            std::string::npos)
      << timeout_help("");
}

}  // namespace
}  // namespace fabcheck
