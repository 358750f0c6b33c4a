// Tier classification of figures against a profile's [[path]] tables.
#include "results/tiers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

const TierPath* tier_path_for(const Profile& profile, const std::string& probe,
                              const std::string& metric, std::optional<std::uint64_t> size) {
  for (const TierPath& path : profile.paths) {
    const bool listed = std::any_of(path.figures.begin(), path.figures.end(), [&](const auto& f) {
      return f.first == probe && f.second == metric;
    });
    if (!listed) continue;
    if (path.min_size || path.max_size) {
      if (!size) return nullptr;
      if (path.min_size && *size < *path.min_size) return nullptr;
      if (path.max_size && *size > *path.max_size) return nullptr;
    }
    return &path;
  }
  return nullptr;
}

bool TierMatch::matches(const std::string& tier) const {
  return std::any_of(matched.begin(), matched.end(),
                     [&](const Tier* t) { return t->name == tier; });
}

std::string TierMatch::describe() const {
  if (!matched.empty()) {
    return text::join(matched, " or ", [](const Tier* tier) { return tier->name; });
  }
  if (next_below && next_above) {
    return "no tier (between " + next_below->name + " and " + next_above->name + ")";
  }
  if (next_above) return "no tier (below every tier)";
  if (next_below) return "no tier (above every tier)";
  return "no tier";
}

TierMatch classify_tier(const TierPath& path, double figure) {
  TierMatch match;
  match.value = figure / path.divide_by;
  if (!std::isfinite(match.value)) return match;
  for (const Tier& tier : path.tiers) {
    if (match.value >= tier.min && match.value <= tier.max) {
      match.matched.push_back(&tier);
    } else if (tier.max < match.value) {
      if (!match.next_below || tier.max > match.next_below->max) match.next_below = &tier;
    } else if (!match.next_above || tier.min < match.next_above->min) {
      match.next_above = &tier;
    }
  }
  if (!match.matched.empty()) {
    match.next_below = nullptr;
    match.next_above = nullptr;
  }
  return match;
}

const Tier* find_tier(const TierPath& path, const std::string& name) {
  for (const Tier& tier : path.tiers) {
    if (tier.name == name) return &tier;
  }
  return nullptr;
}

TierVerdict judge_tier(const TierPath& path, const TierMatch& match, const std::string& expected) {
  TierVerdict verdict;
  verdict.text = "matches " + match.describe();
  const Tier* want = expected.empty() ? nullptr : find_tier(path, expected);
  if (want == nullptr) return verdict;
  verdict.text += ", expected " + want->name;
  if (match.matches(want->name)) return verdict;
  // Anything at or above the expected tier's minimum is as good or better.
  verdict.below_expected = match.value < want->min;
  return verdict;
}

std::string tier_note(const Profile& profile, const std::string& probe, const std::string& metric,
                      std::optional<std::uint64_t> size, double figure,
                      const std::string& expected) {
  const TierPath* path = tier_path_for(profile, probe, metric, size);
  if (path == nullptr) return "";
  const TierMatch match = classify_tier(*path, figure);
  std::string per;
  if (path->divide_by != 1) {
    per = fmt::format("{:.4g} {} per {}: ", match.value, path->unit,
                      path->per.empty() ? std::string("unit") : path->per);
  }
  return " (" + per + judge_tier(*path, match, expected.empty() ? path->expect : expected).text +
         ")";
}

}  // namespace fabcheck
