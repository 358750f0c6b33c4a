// Help texts of --iters, --warmup and --timeout with the defaults the run starts from.
#include "bench/cli/run_flag_help.hpp"

#include <fmt/format.h>

#include <functional>

#include "bench/core/plan.hpp"
#include "bench/core/runner.hpp"

namespace fabcheck {
namespace {

// "(default 10, plan gate's)"; for `run` "(default 20; with --plan: gate 10, acceptance 20, ...)".
std::string defaults(const std::string& plan,
                     const std::function<std::string(const RunOptions&)>& value) {
  if (!plan.empty())
    return fmt::format("(default {}, plan {}'s)", value(find_plan(plan).options), plan);
  std::string each;
  for (const Plan& known : builtin_plans())
    each += (each.empty() ? "" : ", ") + known.name + " " + value(known.options);
  return fmt::format("(default {}; with --plan: {})", value(RunOptions{}), each);
}

}  // namespace

std::string iters_help(const std::string& plan) {
  return "Timed iterations per size " +
         defaults(plan, [](const RunOptions& o) { return std::to_string(o.iters); });
}

std::string warmup_help(const std::string& plan) {
  return "Untimed warm-up iterations per size " +
         defaults(plan, [](const RunOptions& o) { return std::to_string(o.warmup); });
}

std::string timeout_help(const std::string& plan) {
  return fmt::format(
      "Seconds S one probe may take {}: a probe some rank has not finished S + {} s after the "
      "first rank began it ends the run (exit 3, naming the ranks); an NCCL operation still "
      "running S s after the probe made its communicators is aborted (the probe errors)",
      defaults(plan, [](const RunOptions& o) { return fmt::format("{}", o.probe_timeout_s); }),
      kWatchdogMargin_s);
}

}  // namespace fabcheck
