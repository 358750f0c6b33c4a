// Streaming reader of a JSON Lines file: regular files only, memory bounded by the longest line
// allowed, lines handed over one at a time.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace fabcheck {

// Longest line accepted by default: a record is a few hundred bytes; a message or evidence
// quoting log lines a few KiB.
inline constexpr std::size_t kMaxJsonlLineBytes = 1 << 20;

// Opens `path` and throws ConfigError naming it when it is missing, unreadable, or not a regular
// file (a FIFO, a socket, a device such as /dev/zero, a directory): such a "file" could block the
// reader or never end. Symbolic links to regular files are followed.
void check_regular_file(const std::filesystem::path& path);

// Calls `line` for each non-blank line of `path`, without its "\n" (nor a "\r" before it), with
// its 1-based number, and `terminated` false only for a last line the writer did not finish (no
// newline: a run killed mid-write). Memory use is bounded by `max_line_bytes` plus a read buffer.
// Throws ConfigError naming the file (and line) when it is not a regular file, cannot be read, or
// holds a line longer than `max_line_bytes`. Exceptions from `line` pass through.
void for_each_jsonl_line(
    const std::filesystem::path& path,
    const std::function<void(std::string_view line, std::size_t number, bool terminated)>& line,
    std::size_t max_line_bytes = kMaxJsonlLineBytes);

// Reads a whole small file (summary.json) the same guarded way, refusing one above `max_bytes`.
std::string read_small_regular_file(const std::filesystem::path& path, std::size_t max_bytes);

}  // namespace fabcheck
