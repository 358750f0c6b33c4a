// What summary.json's "environment" keeps: NCCL's, the transports', the launcher's and the
// scheduler's settings and the visible GPUs; not per-rank values nor PMIx's internals.
#include <gtest/gtest.h>

#include "bench/cli/run_environment.hpp"

namespace fabcheck {
namespace {

TEST(RunEnvironment, KeepsWhatShapesTheRun) {
  const char* entries[] = {
      "NCCL_IB_HCA=mlx5_0",
      "UCX_TLS=rc,sm",
      "FI_PROVIDER=efa",
      "OMPI_MCA_btl=^openib",
      "OMPI_MCA_orte_precondition_transports=13774682e098492a-dac182932ada4ec2",
      "OMPI_MCA_ess_base_jobid=794886145",
      "OMPI_COMM_WORLD_SIZE=16",
      "OMPI_COMM_WORLD_RANK=3",
      "PMIX_RANK=3",
      "PMIX_SERVER_URI4=935657472.0;tcp4://127.0.0.1:45413",
      "CUDA_VISIBLE_DEVICES=0,1",
      "SLURM_JOB_ID=4242",
      "HOME=/root",
      "NOEQUALS",
      nullptr};
  const auto kept = run_environment(const_cast<char**>(entries));
  const std::map<std::string, std::string> expected = {
      {"NCCL_IB_HCA", "mlx5_0"},   {"UCX_TLS", "rc,sm"},           {"FI_PROVIDER", "efa"},
      {"OMPI_MCA_btl", "^openib"}, {"OMPI_COMM_WORLD_SIZE", "16"}, {"CUDA_VISIBLE_DEVICES", "0,1"},
      {"SLURM_JOB_ID", "4242"}};
  EXPECT_EQ(kept, expected);
}

}  // namespace
}  // namespace fabcheck
