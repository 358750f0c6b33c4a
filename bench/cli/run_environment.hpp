// The environment variables a run records in summary.json.
#pragma once

#include <map>
#include <string>

namespace fabcheck {

// The variables that shape a run, for summary.json's "environment": NCCL's, the transports'
// (UCX_*, UCC_*, FI_* for libfabric, HCOLL_*), the MPI launcher's settings (OMPI_MCA_*,
// PMIX_MCA_*, job sizes) and the scheduler's job (SLURM_JOB_ID, ...), and which GPUs are visible
// (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, NVIDIA_VISIBLE_DEVICES). Not per-rank values, not
// PMIx's internal addresses.
std::map<std::string, std::string> run_environment(char** environment);

}  // namespace fabcheck
