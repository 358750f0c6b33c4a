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
  // --since / --until as typed (parse_time_phrase's forms); nullopt for no bound. "" is given, and
  // refused.
  std::optional<std::string> since;
  std::optional<std::string> until;
  std::size_t flap_limit = 5;
};

// `value` as parse_time_phrase reads it ("2024-03-05 10:00", "yesterday", "-24h"), relative to
// `now_s`: seconds since the epoch; throws ConfigError naming `option`, the value, what is wrong
// and the forms accepted otherwise.
double parse_time_bound(const std::string& option, const std::string& value, double now_s);

// Files are plain text or gzip (rotated logs). Exit code: 0 pass (or warnings), 1 a FAIL finding,
// 2 a file missing, not a regular file, unreadable or a corrupt gzip stream, or a bad option
// (message on stderr), 3 nothing to read (every file empty) or a file with no line a kernel log
// has (KernelLogScan::recognised_lines: random bytes, another compression).
int kernel_log_command(const std::vector<std::string>& files, const KernelLogOptions& options,
                       std::FILE* out);

}  // namespace fabcheck
