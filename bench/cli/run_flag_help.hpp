// The --help text of the run flags whose defaults a plan sets (--iters, --warmup, --timeout): each
// default read from the options the command starts from, and what --timeout bounds.
#pragma once

#include <string>

namespace fabcheck {

// For `plan` ("gate": the plan's own default; "" for `run`: RunOptions' default, then each plan's):
//   "Timed iterations per size (default 20; with --plan: gate 10, acceptance 20, ...)"
std::string iters_help(const std::string& plan);
std::string warmup_help(const std::string& plan);
// Also what the limit bounds: the watchdog's step (the limit plus its margin) and NCCL's
// operations.
std::string timeout_help(const std::string& plan);

}  // namespace fabcheck
