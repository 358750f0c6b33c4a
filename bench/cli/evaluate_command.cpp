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
    const Profile profile = load_profile_for(profile_name, registry, nullptr);
    const auto measurements = read_measurements(run_dir);
    findings = evaluate(measurements, profile);
    for (JudgeScope scope : {JudgeScope::each_probe, JudgeScope::whole_run}) {
      for (auto& finding : run_judges(registry.judges(), scope, measurements, profile)) {
        findings.push_back(std::move(finding));
      }
    }
    std::printf("# %zu measurements from %s judged against profile %s\n", measurements.size(),
                run_dir.c_str(), profile.name.c_str());
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  }
  for (const auto& finding : findings) {
    if (finding.severity == Severity::pass) continue;
    std::printf("%-6s %s\n", severity_label(finding.severity), finding.message.c_str());
  }
  std::printf("%s\n", verdict_line(findings).c_str());
  return exit_code_of(verdict_of(findings));
}

}  // namespace fabcheck
