// `fabcheck evaluate RUN_DIR --profile P`: re-judge stored measurements without running anything.
#include <cstdio>

#include "bench/cli/cli_support.hpp"
#include "bench/cli/commands.hpp"
#include "results/config_error.hpp"
#include "results/evaluator.hpp"
#include "results/run_writer.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

int evaluate_command(const std::string& run_dir, const std::string& profile_name,
                     const Registry& registry) {
  std::vector<Finding> findings;
  try {
    const Profile profile = load_profile(resolve_profile(profile_name, profile_dirs()), registry.catalog());
    const auto measurements = read_measurements(run_dir);
    findings = evaluate(measurements, profile);
    std::printf("# %zu measurements from %s judged against profile %s\n", measurements.size(),
                run_dir.c_str(), profile.name.c_str());
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  }
  for (const auto& finding : findings) {
    if (finding.severity == Severity::pass) continue;
    std::printf("%-6s %s\n", to_string(finding.severity), finding.message.c_str());
  }
  const Verdict verdict = verdict_of(findings);
  const auto counts = count_by_severity(findings);
  auto count = [&counts](Severity severity) {
    const auto it = counts.find(severity);
    return it == counts.end() ? 0 : it->second;
  };
  std::printf("verdict: %s (%d pass, %d warn, %d fail, %d waived, %d error); exit code %d\n",
              to_string(verdict), count(Severity::pass), count(Severity::warn), count(Severity::fail),
              count(Severity::waived), count(Severity::error), exit_code_of(verdict));
  return exit_code_of(verdict);
}

}  // namespace fabcheck
