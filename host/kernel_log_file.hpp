// A saved kernel log read line by line with bounded memory: plain text, or gzip-compressed as
// logrotate leaves rotated logs (kern.log.2.gz), told apart by the file's first bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "results/line_input.hpp"

namespace fabcheck {

// Decompressed bytes beyond this are refused: no kernel log is that large, a gzip bomb is.
inline constexpr std::uint64_t kMostKernelLogBytes = std::uint64_t{16} << 30;

struct KernelLogFileStats {
  std::size_t lines = 0;
  std::uint64_t bytes = 0;  // after decompression
  bool compressed = false;
};

// Reads `file` (a regular file only: read_lines' rules) and hands on each line. Throws ConfigError
// naming the file for one that cannot be read, a gzip stream that is corrupt or cut short, or one
// that decompresses past kMostKernelLogBytes.
KernelLogFileStats read_kernel_log_file(const std::filesystem::path& file,
                                        const LineHandler& on_line);

}  // namespace fabcheck
