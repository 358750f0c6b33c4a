// The logic of `fabcheck kernel-log FILE...`: saved kernel logs read, tallied, judged and printed
// with the findings and exit codes node.kernel_log gives on a live node.
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

struct KernelLogOptions {
  std::string since;  // --since: ISO 8601 or "-24h" / "-90m" / "-2d" before now; "" for no bound
  std::string until;  // --until: the same forms
  std::size_t flap_limit = 5;
};

// "2024-03-05T10:00:00Z", "2024-03-05 10:00" (local), "-24h": seconds since the epoch relative to
// `now_s`; throws ConfigError naming `option` and the value otherwise.
double parse_time_bound(const std::string& option, const std::string& value, double now_s);

// Files are plain text or gzip (rotated logs). Exit code: 0 pass (or warnings), 1 a FAIL finding,
// 2 a file missing, not a regular file, unreadable or a corrupt gzip stream, or a bad option
// (message on stderr), 3 nothing to read (every file empty) or a file with no line a kernel log
// has (KernelLogScan::recognised_lines: random bytes, another compression).
int kernel_log_command(const std::vector<std::string>& files, const KernelLogOptions& options,
                       std::FILE* out);

}  // namespace fabcheck
