// The NCCL debug logs of a run: <run_dir>/nccl-logs/<probe-id>.<host>.<pid>.log, where the NCCL
// backend has them written and how the probes and evidence that read them find them by probe.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fabcheck {

// The folder NCCL debug logs go to (the NCCL backend points NCCL_DEBUG_FILE there):
// <run_dir>/nccl-logs.
std::filesystem::path nccl_log_dir(const std::filesystem::path& run_dir);

// The probe id a log file belongs to: its first two dot-separated name parts
// ("coll.all_reduce.node-a.1234.log" -> "coll.all_reduce"); "" when the name has no such form.
std::string probe_of_nccl_log(const std::string& file_name);

// probe id -> files (sorted), of the *.log files in `dir` whose name contains ".<host>." (all
// files when `host` is empty).
std::map<std::string, std::vector<std::string>> nccl_logs_by_probe(const std::filesystem::path& dir,
                                                                   const std::string& host);

}  // namespace fabcheck
