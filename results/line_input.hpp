// Reading a text input (a saved log, a record file) line by line with bounded memory; anything but
// a regular file (a directory, a FIFO, a device) is refused before a byte is read
// (open_regular_file).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace fabcheck {

// Lines longer than this are cut: their first kMaxLineBytes bytes are passed on, marked truncated.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

// One line without its "\n" (and without a "\r" before it), its 1-based number, and whether it was
// cut at the limit.
using LineHandler = std::function<void(std::string_view line, std::size_t number, bool truncated)>;

// Splits a byte stream fed in pieces into lines, holding at most one line of `max_line_bytes`.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line_bytes = kMaxLineBytes);
  void feed(std::string_view bytes, const LineHandler& on_line);
  // Passes on a last line that had no "\n".
  void finish(const LineHandler& on_line);
  std::size_t lines() const { return lines_; }
  std::size_t truncated_lines() const { return truncated_; }

 private:
  void emit(const LineHandler& on_line);
  std::size_t max_line_bytes_;
  std::string pending_;
  bool cutting_ = false;  // the current line passed the limit; dropping bytes until "\n"
  std::size_t lines_ = 0;
  std::size_t truncated_ = 0;
};

struct LineInputStats {
  std::size_t lines = 0;
  std::size_t truncated_lines = 0;
  std::size_t bytes = 0;
};

// Reads `file` line by line. Throws ConfigError naming the file and what it is when it does not
// exist, is not a regular file (`expected` says what it should be: "a kernel log") or cannot be
// read.
LineInputStats read_lines(const std::filesystem::path& file, const std::string& expected,
                          const LineHandler& on_line, std::size_t max_line_bytes = kMaxLineBytes);

}  // namespace fabcheck
