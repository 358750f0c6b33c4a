// What the commands share: where profiles live, the launcher's rank before MPI starts, versions.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/registry.hpp"
#include "bench/sys/launcher.hpp"
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

// A usage error (exit 2), said once for the whole job: rank 0 prints it; another rank hands it to
// its sentinel, which prints it (naming the rank) only when rank 0 did not fail the same way, i.e.
// when the launcher has not ended the job within a few seconds.
void report_usage_error(const std::string& message);

// The variables that shape a run, for summary.json's "environment": NCCL's, the transports'
// (UCX_*, UCC_*, FI_* for libfabric, HCOLL_*), the MPI launcher's settings (OMPI_MCA_*,
// PMIX_MCA_*, job sizes) and the scheduler's job (SLURM_JOB_ID, ...), and which GPUs are visible
// (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, NVIDIA_VISIBLE_DEVICES). Not per-rank values, not
// PMIx's internal addresses.
std::map<std::string, std::string> run_environment(char** environment);

// fabcheck, compiler, MPI, CUDA and NCCL versions for summary.json.
nlohmann::json build_versions();

// A number given on the command line (CLI11 parses "nan" and "inf" as numbers): throws ConfigError
// "FLAG VALUE: expected a finite number from MIN to MAX" unless it is finite and in range.
void check_cli_number(const std::string& flag, double value, double min, double max,
                      bool min_exclusive = false);

// The command line as one string, shell-quoted where needed.
std::string joined_command_line(int argc, char** argv);

}  // namespace fabcheck
