// NcclLogProof: how coll.nic_loopback proves from its own NCCL log that its traffic crossed the
// NICs, handed in by the one place that registers every family (fabric's network_only_log_problem:
// bench/coll cannot include fabric/).
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace fabcheck {

// "" when the NCCL logs `probe` left in `log_dir` for `host` show network channels only, else why
// not.
using NcclLogProof = std::function<std::string(const std::filesystem::path& log_dir,
                                               const std::string& probe, const std::string& host)>;

}  // namespace fabcheck
