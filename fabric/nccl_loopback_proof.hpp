// The proof coll.nic_loopback asks of its own NCCL log: every channel NCCL connected went over the
// network (NET/...), none over P2P or SHM, so the figures are the NICs' and not NVLink's.
#pragma once

#include <filesystem>
#include <string>

namespace fabcheck {

// "" when the NCCL logs `probe` left in `log_dir` for `host` show network channels only; else why
// not, naming the first P2P/SHM channel line, or saying that the log cannot prove it (missing, or
// without Channel lines). Never throws: an unreadable log is a reason too.
std::string network_only_log_problem(const std::filesystem::path& log_dir, const std::string& probe,
                                     const std::string& host);

}  // namespace fabcheck
