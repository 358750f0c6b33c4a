// The plan printed (probe, estimate, knobs, waivers, trimming, total) and as summary.json holds it.
#include "bench/core/plan_text.hpp"

#include <fmt/format.h>

namespace fabcheck {

std::string format_plan(const std::string& plan_name, const JobShape& job, const PlanEstimate& plan,
                        const BudgetFit* fit) {
  std::string text = fmt::format(
      "# plan {}: {} probe(s), {} rank(s) on {} host(s), collective backend {}\n", plan_name,
      plan.probes.size(), job.ranks, job.hosts, job.backend.empty() ? "none" : job.backend);
  if (fit != nullptr) {
    if (fit->steps.empty()) {
      text += fmt::format("# budget {:.0f} s: the plan's estimate {:.1f} s fits; nothing trimmed\n",
                          fit->budget_s, fit->untrimmed.total_s());
    } else {
      text += fmt::format("# budget {:.0f} s: the plan's estimate {:.1f} s is over it; trimmed:\n",
                          fit->budget_s, fit->untrimmed.total_s());
      for (const auto& step : fit->steps) text += "#   " + step + "\n";
    }
  }
  text += fmt::format("#   {:<24} {:>9}  {}\n", "probe", "estimate", "knobs");
  for (const PlannedProbe& probe : plan.probes) {
    if (!probe.waived.empty()) {
      text += fmt::format("#   {:<24} {:>9}  WAIVED here: {}\n", probe.id, "-", probe.waived);
      continue;
    }
    std::string knobs = probe.knobs;
    if (probe.clamped) knobs += (knobs.empty() ? "" : "; ") + std::string("bounded by --timeout");
    text += fmt::format("#   {:<24} {:>7.1f} s  {}\n", probe.id, probe.seconds, knobs);
  }
  text +=
      fmt::format("# estimated total {:.1f} s (probes {:.1f} s + start-up and writing {:.1f} s)\n",
                  plan.total_s(), plan.probes_s(), plan.startup_s);
  if (fit != nullptr && !fit->fits) {
    text += fmt::format(
        "# budget {:.0f} s cannot be met: the minimum plan (iterations, durations and sizes at "
        "their floors, essential probes only) is estimated at {:.1f} s; running that minimum\n",
        fit->budget_s, plan.total_s());
  }
  return text;
}

nlohmann::json plan_estimate_json(const PlanEstimate& plan, const BudgetFit* fit) {
  nlohmann::json probes = nlohmann::json::array();
  for (const PlannedProbe& probe : plan.probes) {
    nlohmann::json entry = {{"id", probe.id},
                            {"seconds", probe.seconds},
                            {"model", probe.modelled ? "probe" : "default"},
                            {"knobs", probe.knobs}};
    if (probe.clamped) entry["bounded_by_timeout"] = true;
    if (!probe.waived.empty()) entry["waived"] = probe.waived;
    probes.push_back(std::move(entry));
  }
  nlohmann::json json = {{"estimated_s", plan.total_s()},
                         {"startup_s", plan.startup_s},
                         {"probes", probes},
                         {"budget_s", nullptr}};
  if (fit != nullptr) {
    json["budget_s"] = fit->budget_s;
    json["untrimmed_s"] = fit->untrimmed.total_s();
    json["fits"] = fit->fits;
    json["trimmed"] = fit->steps;
    json["dropped"] = fit->dropped;
  }
  return json;
}
}  // namespace fabcheck
