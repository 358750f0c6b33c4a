// A profile's [[expect]] tables: expected figures per probe, metric, subject, backend, hosts and
// size range, each checked against the catalog and its thresholds' order.
// Internal to results/profile*.cpp.
#pragma once

#include "results/profile.hpp"
#include "results/profile_toml.hpp"

namespace fabcheck {

// Appends the [[expect]] array `node` to profile.expectations; throws ConfigError.
void read_expectations(const ProfileToml& reader, const toml::node& node, Profile& profile);

}  // namespace fabcheck
