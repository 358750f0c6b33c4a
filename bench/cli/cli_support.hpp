// What the commands share: where profiles live, the launcher's rank before MPI starts, versions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// This process's rank as the launcher (mpirun, srun) set it in the environment, before MPI starts;
// 0 when not launched by one. Only rank 0 prints usage errors.
int launcher_rank();
// How many ranks the launcher started (1 when not launched by one).
int launcher_size();

// fabcheck, compiler, MPI, CUDA and NCCL versions for summary.json.
nlohmann::json build_versions();

// The command line as one string, shell-quoted where needed.
std::string joined_command_line(int argc, char** argv);

}  // namespace fabcheck
