// Describing paths given as input, and opening only regular files.
#include "bench/sys/input_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bench/sys/config_error.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a file";
}

}  // namespace

std::string describe_path(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return kind_of(info.st_mode);
  const int error = errno;
  if (error == ELOOP) return "a symbolic link that loops";
  if (error == ENOENT) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      std::error_code ignored;
      return "a symbolic link to " + fs::read_symlink(path, ignored).string() +
             ", which does not exist";
    }
    return "missing";
  }
  if (error == ENOTDIR) return "missing (a part of the path is not a directory)";
  return std::string("unreadable (") + std::strerror(error) + ")";
}

std::string why_not_a_regular_file(const fs::path& path) {
  const std::string what = describe_path(path);
  if (what == "a regular file") return "";
  if (what.rfind("missing", 0) == 0) return "does not exist" + what.substr(7);
  if (what.rfind("unreadable", 0) == 0) return "cannot be read" + what.substr(10);
  return "is " + what;
}

int open_regular_file(const fs::path& path, const std::string& expected) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::string why = why_not_a_regular_file(path);
    if (why.empty()) {
      throw ConfigError(path.string(), 0, std::string("cannot be read: ") + std::strerror(error));
    }
    throw ConfigError(path.string(), 0,
                      why.rfind("does not exist", 0) == 0 ? why : why + ", not " + expected);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw ConfigError(path.string(), 0, "is " + kind_of(info.st_mode) + ", not " + expected);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const fs::path& path, const std::string& expected,
                              std::size_t max_bytes) {
  const int fd = open_regular_file(path, expected);
  std::string text;
  char buffer[65536];
  for (ssize_t got; (got = ::read(fd, buffer, sizeof(buffer))) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 || text.size() + static_cast<std::size_t>(got) > max_bytes) {
      const int error = errno;
      ::close(fd);
      throw ConfigError(
          path.string(), 0,
          got < 0 ? std::string("cannot be read: ") + std::strerror(error)
                  : "is larger than " + std::to_string(max_bytes >> 20) + " MiB: not " + expected);
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

}  // namespace fabcheck
