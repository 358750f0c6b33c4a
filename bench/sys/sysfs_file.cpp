// Reading one small sysfs attribute file as trimmed text, and saying which could not be read.
#include "bench/sys/sysfs_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bench/sys/input_path.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

bool absent(int error) { return error == ENOENT || error == ENOTDIR; }

void add(std::vector<SysfsProblem>* problems, const std::filesystem::path& path, std::string what) {
  if (problems) problems->push_back({path.string(), std::move(what)});
}

}  // namespace

std::optional<std::string> read_sysfs_text(const std::filesystem::path& file,
                                           std::vector<SysfsProblem>* problems) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (!absent(error) && error != ELOOP) {
      add(problems, file, std::string("cannot read: ") + std::strerror(error));
    }
    return std::nullopt;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    // An attribute is a file: a FIFO or a folder in its place is named, never read as absent.
    add(problems, file, "is " + describe_path(file) + ", not an attribute file");
    return std::nullopt;
  }
  constexpr std::size_t kLimit = 64 * 1024;
  std::string content(kLimit, '\0');
  std::size_t got = 0;
  while (got < kLimit) {
    const ssize_t n = ::read(fd, content.data() + got, kLimit - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      add(problems, file, std::string("cannot read: ") + std::strerror(error));
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  content.resize(got);
  return std::string(text::trim(content));
}

std::vector<std::filesystem::path> list_sysfs_dir(const std::filesystem::path& dir,
                                                  std::vector<SysfsProblem>* problems) {
  std::vector<std::filesystem::path> entries;
  std::error_code error;
  std::filesystem::directory_iterator it(dir, error);
  if (error) {
    if (!absent(error.value())) add(problems, dir, "cannot list: " + error.message());
    return entries;
  }
  for (std::filesystem::directory_iterator end; it != end; it.increment(error)) {
    if (error) {
      add(problems, dir, "cannot list: " + error.message());
      break;
    }
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

}  // namespace fabcheck
