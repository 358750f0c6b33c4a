// The NCCL_* environment of an NCCL probe: the user's own settings (respected and recorded), the
// debug log written per probe and per rank into the run directory, and forced transport settings.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "bench/core/nccl_log_files.hpp"

namespace fabcheck {

using EnvironmentMap = std::map<std::string, std::string>;

// Every NCCL_* variable of this process's environment (the user's, outside a probe), for
// summary.json.
EnvironmentMap user_nccl_environment();

// What to set before a probe's communicators are created: NCCL_DEBUG=INFO,
// NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV and NCCL_DEBUG_FILE=<log dir>/<probe_id>.%h.%p.log, except
// those the user set (`user`); NCCL_COMM_BLOCKING=0 whatever the user set (NCCL 2.28 lets that
// variable override the communicator's config, src/init.cc envConfigOverride, and the backend's
// timeouts and timed samples need non-blocking communicators); then `forced` (which wins over the
// user: a probe's own transport settings are its purpose).
EnvironmentMap nccl_probe_environment(const EnvironmentMap& user,
                                      const std::filesystem::path& run_dir,
                                      const std::string& probe_id, const EnvironmentMap& forced);

// coll.nic_loopback: no NVLink/PCIe peer access and no shared memory, GPUDirect RDMA at any
// distance, so even a single-node all-reduce goes through the NICs; every connection made while the
// communicator is created (NCCL_RUNTIME_CONNECT=0: NCCL 2.28 otherwise connects at the first
// operation, src/init.cc); and its INFO log in the run directory whatever the user set, because
// that log is the probe's proof (fabric/nccl_loopback_proof.hpp). NCCL reads NCCL_P2P_DISABLE when
// it computes paths at init and NCCL_SHM_DISABLE when it connects, and keeps both for the process.
EnvironmentMap nic_loopback_environment(const std::filesystem::path& run_dir,
                                        const std::string& probe_id);

// Sets variables while alive and restores what was there before (or unsets) when destroyed. The
// NCCL backend keeps one for its whole life: NCCL reads some variables only when it first connects.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const EnvironmentMap& values);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> previous_;
};

}  // namespace fabcheck
