// --budget's trimming: the knobs and sweeps a plan's probes declare, scaled and cut in order.
#include "bench/core/budget_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "results/units.hpp"

namespace fabcheck {
namespace {

// A knob --budget scales in step 1: an option of the plan's probes declaring a floor.
struct ScaledKnob {
  OptionSpec spec;
  double value = 0;  // as the plan has it
  double floor = 0;
};

// A sweep --budget trims in step 2: a declared size sweep, or --sizes (key "").
struct TrimmedSweep {
  std::string key;
  std::vector<std::uint64_t> sizes;
  std::uint64_t floor = kBudgetLargeSize;
};

double parse_floor(const OptionSpec& spec) {
  if (spec.type == OptionType::size_sweep) {
    const auto bytes = parse_byte_size(spec.budget_floor);
    if (!bytes) throw std::logic_error(spec.key + ": budget_floor is not a size");
    return static_cast<double>(*bytes);
  }
  return std::stod(spec.budget_floor);
}

// Every option of `probes` with a budget floor, once, in key order.
std::map<std::string, OptionSpec> trimmable_specs(const std::vector<Probe*>& probes) {
  std::map<std::string, OptionSpec> specs;
  for (const Probe* probe : probes) {
    for (const OptionSpec& spec : probe->info().options) {
      if (!spec.budget_floor.empty()) specs.emplace(spec.key, spec);
    }
  }
  return specs;
}

std::vector<ScaledKnob> scaled_knobs(const std::vector<Probe*>& probes, const RunOptions& options) {
  std::vector<ScaledKnob> knobs;
  for (const auto& [key, spec] : trimmable_specs(probes)) {
    if (spec.type != OptionType::number && spec.type != OptionType::integer) continue;
    if (spec.default_value.empty() && !option_given(options, spec)) continue;  // probe's choice
    const double value = spec.type == OptionType::number
                             ? option_number(options, spec)
                             : static_cast<double>(option_integer(options, spec));
    knobs.push_back({spec, value, parse_floor(spec)});
  }
  return knobs;
}

std::vector<TrimmedSweep> trimmed_sweeps(const std::vector<Probe*>& probes,
                                         const RunOptions& options) {
  std::vector<TrimmedSweep> sweeps;
  if (!options.sizes.empty()) sweeps.push_back({"", options.sizes, kBudgetLargeSize});
  for (const auto& [key, spec] : trimmable_specs(probes)) {
    if (spec.type != OptionType::size_sweep) continue;
    sweeps.push_back(
        {key, option_sizes(options, spec), static_cast<std::uint64_t>(parse_floor(spec))});
  }
  return sweeps;
}

std::string number_text(double value) { return fmt::format("{:.3g}", value); }

std::string sizes_text(const std::vector<std::uint64_t>& sizes) {
  std::string text;
  for (auto size : sizes) text += (text.empty() ? "" : ",") + std::to_string(size);
  return text;
}

// `options` with every knob at max(floor, value x factor) (never above its value).
RunOptions scaled(const RunOptions& options, const std::vector<ScaledKnob>& knobs, double factor) {
  RunOptions result = options;
  auto scale_int = [factor](int value, int floor) {
    if (value <= floor) return value;
    return std::max(floor, static_cast<int>(std::lround(value * factor)));
  };
  result.iters = scale_int(options.iters, kBudgetMinIters);
  result.warmup = scale_int(options.warmup, kBudgetMinWarmup);
  for (const ScaledKnob& knob : knobs) {
    if (knob.value <= knob.floor) continue;
    double value = std::max(knob.floor, knob.value * factor);
    if (knob.spec.type == OptionType::integer) {
      value = std::max(knob.floor, std::round(value));
      result.extra[knob.spec.key] = fmt::format("{:.0f}", value);
    } else {
      value = std::max(knob.floor, std::stod(number_text(value)));
      result.extra[knob.spec.key] = number_text(value);
    }
  }
  return result;
}

void set_sweep(RunOptions& options, const TrimmedSweep& sweep) {
  if (sweep.key.empty()) {
    options.sizes = sweep.sizes;
  } else {
    options.extra[sweep.key] = sizes_text(sweep.sizes);
  }
}

// Drops the largest size of a sweep when a size of at least its floor (or its largest, when
// smaller) stays and so does the smallest.
bool drop_largest(TrimmedSweep& sweep) {
  const auto& sizes = sweep.sizes;
  if (sizes.size() < 3) return false;
  const std::uint64_t keep_at_least = std::min(sweep.floor, sizes.back());
  if (sizes[sizes.size() - 2] < keep_at_least) return false;
  sweep.sizes.pop_back();
  return true;
}

int drop_rank(BudgetPriority priority) {
  switch (priority) {
    case BudgetPriority::low:
      return 0;
    case BudgetPriority::normal:
      return 1;
    case BudgetPriority::high:
      return 2;
    case BudgetPriority::essential:
      return 3;
  }
  return 3;
}

std::string knob_change(const std::string& key, const std::string& before,
                        const std::string& after) {
  return fmt::format("{} {} -> {}", key, before, after);
}

}  // namespace

BudgetFit fit_to_budget(const std::vector<Probe*>& probes, const RunOptions& options,
                        const JobShape& job, double budget_s, const WaiverCheck& waived,
                        const std::vector<std::string>& required) {
  BudgetFit fit;
  fit.budget_s = budget_s;
  fit.options = options;
  fit.probes = probes;
  fit.untrimmed = estimate_plan(probes, options, job, waived);
  fit.trimmed = fit.untrimmed;
  auto estimate = [&](const RunOptions& trial, const std::vector<Probe*>& kept) {
    return estimate_plan(kept, trial, job, waived);
  };
  // A probe whose model is beyond its time limit is estimated at the limit (clamped), but it would
  // end there, the run incomplete: repetitions that make it so do not fit either (2147483647
  // iterations fit any budget at the clamped estimate and were kept). Only as many probes as at
  // the knobs' floors may stay clamped (their model is beyond the limit whatever the knobs).
  const auto knobs = scaled_knobs(probes, options);
  const auto clamped = [](const PlanEstimate& plan) {
    return std::count_if(plan.probes.begin(), plan.probes.end(),
                         [](const PlannedProbe& p) { return p.clamped; });
  };
  const PlanEstimate at_floors = estimate(scaled(options, knobs, 0), probes);
  const auto fits = [&](const PlanEstimate& plan) {
    return plan.total_s() <= budget_s && clamped(plan) <= clamped(at_floors);
  };
  if (fits(fit.untrimmed)) return fit;

  // 1. Repetitions and durations, by the largest factor that fits (or to their floors).
  double factor = 0;
  if (fits(at_floors)) {
    double low = 0, high = 1;  // low fits, high does not
    for (int step = 0; step < 40; ++step) {
      const double middle = (low + high) / 2;
      (fits(estimate(scaled(options, knobs, middle), probes)) ? low : high) = middle;
    }
    factor = low;
  }
  fit.options = scaled(options, knobs, factor);
  {
    std::vector<std::string> changes;
    if (fit.options.iters != options.iters)
      changes.push_back(
          knob_change("iters", std::to_string(options.iters), std::to_string(fit.options.iters)));
    if (fit.options.warmup != options.warmup)
      changes.push_back(knob_change("warm-up", std::to_string(options.warmup),
                                    std::to_string(fit.options.warmup)));
    for (const ScaledKnob& knob : knobs) {
      const auto after = fit.options.extra.find(knob.spec.key);
      if (after != fit.options.extra.end() && knob.value > knob.floor)
        changes.push_back(knob_change(knob.spec.key, number_text(knob.value), after->second));
    }
    if (!changes.empty()) {
      fit.steps.push_back(
          fmt::format("repetitions and durations {}: {}",
                      factor > 0 ? fmt::format("x{:.2f}", factor) : std::string("to their floors"),
                      fmt::join(changes, ", ")));
    }
  }
  fit.trimmed = estimate(fit.options, fit.probes);
  if (fits(fit.trimmed)) return fit;

  // 2. Sizes: the largest of every sweep, round by round; then the sizes in between.
  auto sweeps = trimmed_sweeps(probes, fit.options);
  const auto original_sweeps = sweeps;
  bool changed_sizes = false;
  // A sweep no probe of this run reads (the other backend's) is left as it is.
  auto try_sweep = [&](TrimmedSweep& sweep, std::vector<std::uint64_t> sizes) {
    RunOptions trial = fit.options;
    TrimmedSweep changed = sweep;
    changed.sizes = std::move(sizes);
    set_sweep(trial, changed);
    const PlanEstimate trial_plan = estimate(trial, fit.probes);
    if (trial_plan.total_s() >= fit.trimmed.total_s()) return false;
    sweep = changed;
    fit.options = trial;
    fit.trimmed = trial_plan;
    changed_sizes = true;
    return true;
  };
  while (fit.trimmed.total_s() > budget_s) {
    bool dropped = false;
    for (auto& sweep : sweeps) {
      TrimmedSweep candidate = sweep;
      if (drop_largest(candidate)) dropped = try_sweep(sweep, candidate.sizes) || dropped;
    }
    if (!dropped) break;
  }
  if (fit.trimmed.total_s() > budget_s) {
    for (auto& sweep : sweeps) {
      if (sweep.sizes.size() > 2) try_sweep(sweep, {sweep.sizes.front(), sweep.sizes.back()});
    }
  }
  if (changed_sizes) {
    std::vector<std::string> changes;
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
      if (sweeps[i].sizes == original_sweeps[i].sizes) continue;
      changes.push_back(knob_change(sweeps[i].key.empty() ? "--sizes" : sweeps[i].key,
                                    describe_sizes(original_sweeps[i].sizes),
                                    describe_sizes(sweeps[i].sizes)));
    }
    if (!changes.empty()) fit.steps.push_back(fmt::format("sizes: {}", fmt::join(changes, ", ")));
  }
  if (fit.trimmed.total_s() <= budget_s) return fit;

  // 3. Probes, by priority: low first, the most expensive first, the later in the plan first.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < fit.trimmed.probes.size(); ++i) {
    const PlannedProbe& planned = fit.trimmed.probes[i];
    const bool is_required =
        std::find(required.begin(), required.end(), planned.id) != required.end();
    if (planned.priority != BudgetPriority::essential && planned.waived.empty() && !is_required)
      order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const PlannedProbe& pa = fit.trimmed.probes[a];
    const PlannedProbe& pb = fit.trimmed.probes[b];
    if (drop_rank(pa.priority) != drop_rank(pb.priority))
      return drop_rank(pa.priority) < drop_rank(pb.priority);
    if (pa.seconds != pb.seconds) return pa.seconds > pb.seconds;
    return a > b;
  });
  std::vector<bool> keep(fit.probes.size(), true);
  double total = fit.trimmed.total_s();
  for (std::size_t index : order) {
    if (total <= budget_s) break;
    keep[index] = false;
    total -= fit.trimmed.probes[index].seconds;
    fit.dropped.push_back(fit.probes[index]->id());
    fit.steps.push_back(fmt::format(
        "dropped {} ({} priority, estimated {:.1f} s)", fit.probes[index]->id(),
        to_string(fit.trimmed.probes[index].priority), fit.trimmed.probes[index].seconds));
  }
  std::vector<Probe*> kept;
  for (std::size_t i = 0; i < fit.probes.size(); ++i) {
    if (keep[i]) kept.push_back(fit.probes[i]);
  }
  fit.probes = kept;
  fit.trimmed = estimate(fit.options, fit.probes);
  fit.fits = fit.trimmed.total_s() <= budget_s;
  return fit;
}

}  // namespace fabcheck
