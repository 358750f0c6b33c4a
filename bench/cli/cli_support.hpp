// What the commands share: where profiles live, the launcher's rank before MPI starts, versions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabcheck {

// Folders searched for --profile NAME: $FABCHECK_PROFILE_DIR, <binary>/../share/fabcheck/profiles,
// and the source tree's results/profiles.
std::vector<std::filesystem::path> profile_dirs();

// This process's rank as the launcher (mpirun, srun) set it in the environment, before MPI starts;
// 0 when not launched by one. Only rank 0 prints usage errors.
int launcher_rank();

// fabcheck, compiler, MPI, CUDA and NCCL versions for summary.json.
nlohmann::json build_versions();

// The command line as one string, shell-quoted where needed.
std::string joined_command_line(int argc, char** argv);

}  // namespace fabcheck
