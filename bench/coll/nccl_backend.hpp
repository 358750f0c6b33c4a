// The NCCL collective backend's entry points: a backend for one probe (device buffers, one stream
// per GPU, non-blocking communicators with a timeout); whether a GPU is there is
// bench/cuda/cuda_availability.hpp's.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "bench/coll/backend.hpp"
#include "bench/coll/nccl_environment.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

// Whether this process has created an NCCL communicator. NCCL reads its transport settings
// (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_NET_GDR_LEVEL) once a process and keeps them (each an
// NCCL_PARAM cached on first use, src/include/param.h), so a probe that forces them must come
// before any other NCCL probe.
bool nccl_communicator_created();

// Which ranks share a communicator.
enum class NcclScope {
  world,  // every rank of the World (MPI: one GPU per rank; no MPI: every visible GPU)
  host,   // the ranks (GPUs) of each host, one communicator per host
};

struct NcclBackendSettings {
  NcclScope scope = NcclScope::world;
  // NCCL_* variables the probe needs whatever the user set (e.g. nic_loopback_environment()),
  // set for the backend's whole life.
  EnvironmentMap forced_environment;
  // How long queueing a timed sample may take with the streams held before they are let go anyway:
  // NCCL's launch can wait for the GPU when its work FIFO (NCCL_WORK_FIFO_BYTES, 1 MiB) is full,
  // and holding on would deadlock. Such a sample includes host time and is counted
  // (samples_released_early).
  double gate_patience_s = 1.0;
};

// Creates the communicators for one probe, with NCCL's debug log going to
// <run_dir>/nccl-logs/<probe_id>.%h.%p.log (see nccl_environment.hpp); the probe's environment
// stays set while the backend lives (NCCL connects lazily and reads some variables then) and is
// restored when it is destroyed. Every operation is bounded by options.probe_timeout_s from here
// on. Throws NcclError (NCCL/CUDA failure, timeout), ConfigError (two ranks of a host on one GPU)
// or RankFailure (another rank failed), on every rank alike.
std::unique_ptr<CollectiveBackend> make_nccl_backend(World& world, const RunOptions& options,
                                                     const std::filesystem::path& run_dir,
                                                     const std::string& probe_id,
                                                     const NcclBackendSettings& settings = {});

}  // namespace fabcheck
