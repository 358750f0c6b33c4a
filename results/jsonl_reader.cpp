// JSON Lines files read in bounded chunks, after checking that they are regular files.
#include "results/jsonl_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

constexpr std::size_t kReadChunk = 1 << 20;

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A file descriptor open for reading on a regular file, closed on scope exit.
class RegularFile {
 public:
  explicit RegularFile(const std::filesystem::path& path) : path_(path) {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever. It is cleared again
    // below once the file is known to be regular (where it changes nothing anyway).
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      const int error = errno;
      throw ConfigError(path.string(), 0,
                        error == ENOENT ? std::string("no such file")
                                        : std::string("cannot open: ") + std::strerror(error));
    }
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
      const mode_t mode = info.st_mode;
      ::close(fd_);
      fd_ = -1;
      throw ConfigError(path.string(), 0,
                        std::string("refused: ") + kind_of(mode) +
                            ", not a regular file (fabcheck reads result files only from regular "
                            "files, so that a pipe or a device cannot block or flood it)");
    }
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    size_ = static_cast<std::size_t>(info.st_size);
  }
  ~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  // Reads up to `capacity` bytes; 0 at the end. Throws ConfigError on a read error.
  std::size_t read(char* into, std::size_t capacity) {
    while (true) {
      const ssize_t n = ::read(fd_, into, capacity);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EINTR) continue;
      throw ConfigError(path_.string(), 0, std::string("cannot read: ") + std::strerror(errno));
    }
  }
  std::size_t size() const { return size_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::size_t size_ = 0;
};

bool blank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

}  // namespace

void check_regular_file(const std::filesystem::path& path) { RegularFile file(path); }

void for_each_jsonl_line(const std::filesystem::path& path,
                         const std::function<void(std::string_view, std::size_t, bool)>& line,
                         std::size_t max_line_bytes) {
  RegularFile file(path);
  // Unprocessed bytes live in [begin, end) of the buffer; a line never outgrows max_line_bytes, so
  // the buffer never outgrows max_line_bytes + one chunk.
  // One buffer per thread, reused from file to file (a sweep is thousands of small files).
  thread_local std::vector<char> buffer;
  const std::size_t wanted = std::max<std::size_t>(max_line_bytes, kReadChunk) + kReadChunk;
  if (buffer.size() != wanted) {
    buffer.resize(wanted);
    buffer.shrink_to_fit();
  }
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t number = 0;
  auto deliver = [&](std::string_view text, bool terminated) {
    ++number;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (blank(text)) return;
    line(text, number, terminated);
  };
  auto too_long = [&]() {
    throw ConfigError(path.string(), static_cast<long>(number + 1),
                      "line longer than " + std::to_string(max_line_bytes) +
                          " bytes (not a fabcheck record; truncated or corrupted file?)");
  };
  while (true) {
    if (end == buffer.size()) {  // make room: move the partial line to the front
      std::memmove(buffer.data(), buffer.data() + begin, end - begin);
      end -= begin;
      begin = 0;
    }
    const std::size_t got = file.read(buffer.data() + end, buffer.size() - end);
    if (got == 0) break;
    std::size_t scan = end;
    end += got;
    while (true) {
      const void* newline = std::memchr(buffer.data() + scan, '\n', end - scan);
      if (newline == nullptr) break;
      const auto at = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer.data());
      if (at - begin > max_line_bytes) too_long();
      deliver(std::string_view(buffer.data() + begin, at - begin), true);
      begin = at + 1;
      scan = begin;
    }
    if (end - begin > max_line_bytes) too_long();
  }
  if (end > begin) deliver(std::string_view(buffer.data() + begin, end - begin), false);
}

std::string read_small_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  RegularFile file(path);
  std::string text;
  text.resize(std::min(file.size(), max_bytes) + 1);
  std::size_t used = 0;
  while (true) {
    if (used == text.size()) {
      if (text.size() > max_bytes) {
        throw ConfigError(path.string(), 0,
                          "larger than " + std::to_string(max_bytes) + " bytes; refused");
      }
      text.resize(std::min(text.size() * 2, max_bytes + 1));
    }
    const std::size_t got = file.read(text.data() + used, text.size() - used);
    if (got == 0) break;
    used += got;
  }
  if (used > max_bytes) {
    throw ConfigError(path.string(), 0,
                      "larger than " + std::to_string(max_bytes) + " bytes; refused");
  }
  text.resize(used);
  return text;
}

}  // namespace fabcheck
