// Finding a profile for --profile: the folders a NAME is looked for in (those given, then the ones
// installed beside the binary), and "auto" (chosen from this node's PCI bus).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// Where the profiles are installed relative to the running binary: <dir of the executable>/../
// share/fabcheck/profiles (/usr/bin/fabcheck -> /usr/share/fabcheck/profiles; in the build tree
// CMake links build/bench/share/fabcheck/profiles to results/profiles). No path of the source or
// build tree is compiled in: a binary copied alone finds none, and says where it looked.
std::filesystem::path installed_profile_dir();

// Folders searched for --profile NAME, in order: each of `given_dirs` (--profile-dir, repeatable),
// each entry of $FABCHECK_PROFILE_PATH (colon-separated), then installed_profile_dir(). A folder
// given (flag or variable) that does not exist or cannot be read is a ConfigError naming it: a
// site's profiles silently missing would judge the node by the wrong figures.
std::vector<std::filesystem::path> profile_dirs(const std::vector<std::string>& given_dirs = {});

// A profile by NAME, FILE or "auto" (chosen from this node's PCI bus, NVML confirming), checked
// against the registry. `why` gets the reason for the choice ("auto: 8 x NVIDIA H200 (10de:2335) on
// the PCI bus -> h200-sxm-8", or "given"). `sysfs_root` is where the PCI bus is read for "auto".
// Throws ConfigError (an unknown NAME names every folder searched).
Profile load_profile_for(const std::string& name_or_file, const Registry& registry,
                         std::string* why, const std::vector<std::string>& given_dirs = {},
                         const std::string& sysfs_root = "/");

// Sets [node] `key` to `value` as a command-line flag gives it (--expect-gpus 8: gpus = 8), over
// the profile's own; recorded at line 0, which judges name as the flag.
void override_node_setting(Profile& profile, const std::string& key, int value);

}  // namespace fabcheck
