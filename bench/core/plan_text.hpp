// The plan as a person and a program read it: the text printed before a run (and alone with
// --dry-run), and summary.json's "estimate".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/core/budget_fit.hpp"
#include "bench/core/plan_estimate.hpp"

namespace fabcheck {

// The plan as printed before a run (and alone with --dry-run): every probe with its estimate and
// knobs, what will be waived, the trimming, the total.
std::string format_plan(const std::string& plan_name, const JobShape& job, const PlanEstimate& plan,
                        const BudgetFit* fit);

// summary.json "estimate": the budget, the estimate before and after trimming, the trimming, and
// each probe's estimate, to compare with "timing".
nlohmann::json plan_estimate_json(const PlanEstimate& plan, const BudgetFit* fit);

}  // namespace fabcheck
