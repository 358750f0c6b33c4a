// Tier classification: which of a path's tiers (profile [[path.tier]]) a figure matches, and the
// judgement of that against the tier expected ("12.1 GB/s matches tcp-socket, expected ib-ndr").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/profile.hpp"

namespace fabcheck {

// The path a figure belongs to, when `size` (if any) is inside the path's size range; nullptr
// otherwise.
const TierPath* tier_path_for(const Profile& profile, const std::string& probe,
                              const std::string& metric, std::optional<std::uint64_t> size);

struct TierMatch {
  double value = 0;                  // per unit of the path (divided by divide_by)
  std::vector<const Tier*> matched;  // every tier whose range holds it, as listed
  const Tier* next_below = nullptr;  // without a match: the best tier under the value
  const Tier* next_above = nullptr;  // without a match: the worst tier over the value
  bool matches(const std::string& tier) const;
  // "pcie-gen4-x16", "ib-edr or tcp-socket", "no tier (between pcie-gen4-x8 and pcie-gen4-x16)",
  // "no tier (below every tier)", "no tier (above every tier)".
  std::string describe() const;
};

TierMatch classify_tier(const TierPath& path, double figure);

// How a match stands against the expected tier: pass (matches it, or a better one, or lies above
// it), fail (matches only worse tiers, or lies below the expected tier's range).
struct TierVerdict {
  bool below_expected = false;
  std::string text;  // "matches pcie-gen4-x16, expected pcie-gen5-x16"
};
TierVerdict judge_tier(const TierPath& path, const TierMatch& match, const std::string& expected);

const Tier* find_tier(const TierPath& path, const std::string& name);

// " (matches pcie-gen4-x16, expected pcie-gen5-x16)" for a finding about this figure, or "" when
// the figure is on no path of the profile. `expected` overrides the path's own (e.g. the peers'
// tier); both empty: " (matches pcie-gen4-x16)".
std::string tier_note(const Profile& profile, const std::string& probe, const std::string& metric,
                      std::optional<std::uint64_t> size, double figure,
                      const std::string& expected = "");

}  // namespace fabcheck
