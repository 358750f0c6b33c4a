// `fabcheck list`: every probe, and whether it applies on this node or is waived and why;
// `--options`: every family option and profile [node] key; `--plans`: the built-in plans; `--json`:
// the same as JSON lines, for tests and scripts that need the probe ids, metrics and options
// without a copy of their own.
#include <fmt/format.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "bench/cli/commands.hpp"
#include "bench/core/plan.hpp"
#include "bench/core/planning_world.hpp"
#include "bench/sys/launcher.hpp"
#include "results/json_text.hpp"

namespace fabcheck {
namespace {

nlohmann::json probe_json(const Probe& probe, const Applicability& here) {
  const ProbeInfo& info = probe.info();
  nlohmann::json metrics = nlohmann::json::array();
  for (const MetricSpec& metric : info.metrics) {
    metrics.push_back({{"name", metric.name},
                       {"unit", metric.info.unit},
                       {"better", metric.info.better == Better::higher ? "higher" : "lower"}});
  }
  nlohmann::json needs = nlohmann::json::array();
  for (const Requirement& need : info.needs)
    needs.push_back({{"name", need.name}, {"in_build", need.in_build}});
  nlohmann::json options = nlohmann::json::array();
  for (const OptionSpec& option : info.options) options.push_back(option.key);
  return {{"kind", "probe"},
          {"id", info.id},
          {"family", family_of(info.id)},
          {"description", info.description},
          {"metrics", metrics},
          {"needs", needs},
          {"scope", to_string(info.scope)},
          {"heavy", info.heavy},
          {"options", options},
          {"runs_here", here.applies},
          {"waived_because", here.applies ? "" : here.reason}};
}

int list_options(const Registry& registry, bool json) {
  for (const auto& [key, declared] : registry.options()) {
    const OptionSpec& spec = declared.spec;
    if (json) {
      std::puts(json_text(nlohmann::json({{"kind", "option"},
                                          {"key", key},
                                          {"type", option_type_name(spec.type)},
                                          {"default", spec.default_value},
                                          {"meaning", spec.meaning},
                                          {"rule", option_rule(spec)},
                                          {"families", declared.families},
                                          {"probes", declared.probes}}))
                    .c_str());
      continue;
    }
    std::printf("%s = %s  (%s)\n    %s\n    allowed: %s\n    read by: %s\n", key.c_str(),
                spec.default_value.empty() ? "(the probe's choice)" : spec.default_value.c_str(),
                option_type_name(spec.type), spec.meaning.c_str(), option_rule(spec).c_str(),
                fmt::format("{}", fmt::join(declared.probes, ", ")).c_str());
  }
  const NodeSettingCatalog node_keys = registry.node_settings();
  if (json) {
    for (const auto& [key, meaning] : node_keys) {
      std::puts(json_text(nlohmann::json(
                              {{"kind", "profile_node_key"}, {"key", key}, {"meaning", meaning}}))
                    .c_str());
    }
    return 0;
  }
  std::printf("\nprofile [node] keys (read by the judges):\n");
  for (const auto& [key, meaning] : node_keys) {
    std::printf("%s\n    %s\n", key.c_str(), meaning.c_str());
  }
  return 0;
}

int list_plans(const Registry& registry, bool json) {
  for (const Plan& plan : builtin_plans()) {
    std::vector<std::string> ids;
    for (const Probe* probe : registry.plan_probes(plan.name)) ids.push_back(probe->id());
    const std::vector<std::string> required = registry.required_probes(plan.name);
    if (json) {
      std::puts(json_text(nlohmann::json({{"kind", "plan"},
                                          {"name", plan.name},
                                          {"purpose", plan.purpose},
                                          {"probes", ids},
                                          {"required", required},
                                          {"options", plan.options.extra},
                                          {"iters", plan.options.iters},
                                          {"warmup", plan.options.warmup},
                                          {"timeout_s", plan.options.probe_timeout_s}}))
                    .c_str());
      continue;
    }
    std::printf("%s: %s\n    probes: %s\n    %d iterations (%d warm-up), %g s a probe at most\n",
                plan.name.c_str(), plan.purpose.c_str(),
                fmt::format("{}", fmt::join(ids, ", ")).c_str(), plan.options.iters,
                plan.options.warmup, plan.options.probe_timeout_s);
    if (!required.empty()) {
      std::printf("    required (never dropped by --budget, judged or not a pass): %s\n",
                  fmt::format("{}", fmt::join(required, ", ")).c_str());
    }
    for (const auto& [key, value] : plan.options.extra)
      std::printf("    --opt %s=%s\n", key.c_str(), value.c_str());
  }
  return 0;
}

}  // namespace

int list_command(const Registry& registry, const ListArgs& args, int argc, char** argv) {
  if (args.options) return list_options(registry, args.json);
  if (args.plans) return list_plans(registry, args.json);
  // Judged in the World a run would have (MPI when built with it), so the answer matches `run`.
  // Not started by a launcher, that is one rank: described, not started (MPI's singleton start
  // costs most of a second, and `list` communicates nothing).
  std::unique_ptr<World> world;
  if (launcher_size() <= 1) {
    world =
        make_planning_world({.ranks = 1, .hosts = 1, .ranks_per_host = 1, .mpi = mpi_available()});
  } else {
    world = make_mpi_world(&argc, &argv);
  }
  if (!world) world = make_single_world();
  if (!world->is_root()) return 0;
  RunOptions options;
  options.backend = args.backend;
  if (!args.json) std::printf("%-24s %-8s %s\n", "probe", "here", "what it measures / why waived");
  for (Probe* probe : registry.all()) {
    const Applicability here = applicability_of(*probe, *world, options);
    if (args.json) {
      std::puts(json_text(probe_json(*probe, here)).c_str());
      continue;
    }
    std::printf("%-24s %-8s %s\n", probe->id().c_str(), here.applies ? "runs" : "WAIVED",
                here.applies ? probe->description().c_str() : here.reason.c_str());
  }
  return 0;
}

}  // namespace fabcheck
