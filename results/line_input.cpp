// Line input: open without blocking, check the kind of file on the open descriptor, read in chunks.
#include "results/line_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "results/config_error.hpp"

namespace fabcheck {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

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

LineInputStats read_lines(const std::filesystem::path& file, const LineHandler& on_line,
                          std::size_t max_line_bytes) {
  const std::string name = file.string();
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the kind is checked on the descriptor,
  // so a file swapped between a check and the open cannot slip through.
  Descriptor fd(::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ENOENT) throw ConfigError(name, 0, "no such file");
    throw ConfigError(name, 0, std::string("cannot open: ") + std::strerror(error));
  }
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) {
    throw ConfigError(name, 0, std::string("cannot stat: ") + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    throw ConfigError(
        name, 0,
        std::string("is ") + kind_of(status.st_mode) + ", not a regular file; give a saved copy");
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);

  LineSplitter splitter(max_line_bytes);
  LineInputStats stats;
  char chunk[64 * 1024];
  while (true) {
    const ssize_t got = ::read(fd.get(), chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw ConfigError(name, static_cast<long>(splitter.lines() + 1),
                        std::string("read failed: ") + std::strerror(errno));
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
