// What a path given on the command line is, in words, when it is not what was asked for: the reason
// to refuse it ("is a directory", "is a named pipe (FIFO)", "is a symbolic link that loops"), so no
// message says "does not exist" about something that does, or blocks on a FIFO.
#pragma once

#include <filesystem>
#include <string>

namespace fabcheck {

// "a regular file", "a directory", "a named pipe (FIFO)", "a socket", "a character device",
// "a block device", "a symbolic link that loops", "a symbolic link to TARGET, which does not
// exist", "missing" (nothing there), or "unreadable (REASON)" when it cannot be looked at.
std::string describe_path(const std::filesystem::path& path);

// Empty when `path` is a regular file (links followed); otherwise why not, as "is a directory"
// or "does not exist".
std::string why_not_a_regular_file(const std::filesystem::path& path);

// Opens `path` read-only, only if it is a regular file: the check is made on the open descriptor
// (O_NONBLOCK, so opening a FIFO never waits). Returns the descriptor; throws ConfigError naming
// the path, what it is and `expected` ("an NCCL log file") otherwise.
int open_regular_file(const std::filesystem::path& path, const std::string& expected);

// The whole of the regular file `path` (open_regular_file's checks). Throws ConfigError naming the
// path when it cannot be read or is larger than `max_bytes` ("is larger than 16 MiB: not
// EXPECTED").
std::string read_regular_file(const std::filesystem::path& path, const std::string& expected,
                              std::size_t max_bytes);

}  // namespace fabcheck
