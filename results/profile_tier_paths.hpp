// A profile's [[path]] tables and their [[path.tier]] entries: the kinds of path, the figures that
// measure each, and the tiers (ranges of figures) a path can run at. Internal to
// results/profile*.cpp.
#pragma once

#include "results/profile.hpp"
#include "results/profile_toml.hpp"

namespace fabcheck {

// Appends the [[path]] array `node` to profile.paths; a path listed twice, or a figure in two
// paths, is a ConfigError too.
void read_tier_paths(const ProfileToml& reader, const toml::node& node, Profile& profile);

}  // namespace fabcheck
