// The NCCL debug logs of a run: <run_dir>/nccl-logs/<probe-id>.<host>.<pid>.log, grouped by probe.
#include "bench/core/nccl_log_files.hpp"

#include <algorithm>

namespace fabcheck {

std::filesystem::path nccl_log_dir(const std::filesystem::path& run_dir) {
  return run_dir / "nccl-logs";
}

std::string probe_of_nccl_log(const std::string& file_name) {
  std::size_t first = file_name.find('.');
  if (first == 0 || first == std::string::npos) return "";
  std::size_t second = file_name.find('.', first + 1);
  if (second == std::string::npos || second == first + 1) return "";
  return file_name.substr(0, second);
}

std::map<std::string, std::vector<std::string>> nccl_logs_by_probe(const std::filesystem::path& dir,
                                                                   const std::string& host) {
  std::map<std::string, std::vector<std::string>> groups;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    std::string name = it->path().filename().string();
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".log") != 0) continue;
    if (!host.empty() && name.find("." + host + ".") == std::string::npos) continue;
    std::string probe = probe_of_nccl_log(name);
    if (!probe.empty()) groups[probe].push_back(it->path().string());
  }
  for (auto& [probe, files] : groups) std::sort(files.begin(), files.end());
  return groups;
}

}  // namespace fabcheck
