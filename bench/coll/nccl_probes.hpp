// The NCCL-only probes (coll.nic_loopback); the six coll.* probes are in coll_probes.hpp.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "bench/core/registry.hpp"

namespace fabcheck {

// "" when the NCCL logs `probe` left in `log_dir` for `host` show network channels only, else why
// not (fabric's network_only_log_problem, handed in by the one place that registers every family:
// bench/ cannot include fabric/).
using NcclLogProof = std::function<std::string(const std::filesystem::path& log_dir,
                                               const std::string& probe, const std::string& host)>;

// coll.nic_loopback proves from its own NCCL log, with `proof`, that its traffic crossed the NICs;
// without one it says it could not.
void register_nccl_probes(Registry& registry, NcclLogProof proof = {});

}  // namespace fabcheck
