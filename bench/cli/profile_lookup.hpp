// Finding a profile for --profile: the folders a NAME is looked for in, and "auto" (chosen from
// this node's GPUs).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// Folders searched for --profile NAME: $FABCHECK_PROFILE_DIR, <binary>/../share/fabcheck/profiles,
// and the source tree's results/profiles.
std::vector<std::filesystem::path> profile_dirs();

// A profile by NAME, FILE or "auto" (chosen from this node's GPUs through NVML), checked against
// the registry. `why` gets the reason for the choice ("auto: 8 x NVIDIA H200 detected by NVML ->
// h200-sxm-8", or "given"). Throws ConfigError.
Profile load_profile_for(const std::string& name_or_file, const Registry& registry,
                         std::string* why);

}  // namespace fabcheck
