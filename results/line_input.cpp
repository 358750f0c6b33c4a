// Line input: open_regular_file, then chunks split into bounded lines.
#include "results/line_input.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"

namespace fabcheck {

LineSplitter::LineSplitter(std::size_t max_line_bytes)
    : max_line_bytes_(max_line_bytes == 0 ? 1 : max_line_bytes) {}

void LineSplitter::emit(const LineHandler& on_line) {
  std::string_view line = pending_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++lines_;
  if (cutting_) ++truncated_;
  on_line(line, lines_, cutting_);
  pending_.clear();
  cutting_ = false;
}

void LineSplitter::feed(std::string_view bytes, const LineHandler& on_line) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (!cutting_) {
      const std::size_t room = max_line_bytes_ - pending_.size();
      if (piece.size() > room) {
        pending_.append(piece.substr(0, room));
        cutting_ = true;
      } else {
        pending_.append(piece);
      }
    }
    if (newline == std::string_view::npos) return;
    emit(on_line);
    bytes.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish(const LineHandler& on_line) {
  if (!pending_.empty() || cutting_) emit(on_line);
}

LineInputStats read_lines(const std::filesystem::path& file, const std::string& expected,
                          const LineHandler& on_line, std::size_t max_line_bytes) {
  const std::string name = file.string();
  const int fd = open_regular_file(file, expected);
  const std::unique_ptr<const int, void (*)(const int*)> closer(&fd,
                                                                [](const int* d) { ::close(*d); });
  LineSplitter splitter(max_line_bytes);
  LineInputStats stats;
  char chunk[64 * 1024];
  while (true) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      throw ConfigError(name, static_cast<long>(splitter.lines() + 1),
                        std::string("cannot read ") + expected + ": " + std::strerror(error));
    }
    if (got == 0) break;
    stats.bytes += static_cast<std::size_t>(got);
    splitter.feed(std::string_view(chunk, static_cast<std::size_t>(got)), on_line);
  }
  splitter.finish(on_line);
  stats.lines = splitter.lines();
  stats.truncated_lines = splitter.truncated_lines();
  return stats;
}

}  // namespace fabcheck
