// FileTable: open(2)/close(2) of the files an engine works on.
#include "storage/file_table.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace fabcheck {

FileTable::~FileTable() {
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
}

int FileTable::open(const std::filesystem::path& path, const OpenOptions& options) {
  int flags = O_CLOEXEC;
  switch (options.access) {
    case OpenAccess::read_only:
      flags |= O_RDONLY;
      break;
    case OpenAccess::write_only:
      flags |= O_WRONLY;
      break;
    case OpenAccess::read_write:
      flags |= O_RDWR;
      break;
  }
  if (options.direct) flags |= O_DIRECT;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "open " + path.string() + (options.direct ? " (O_DIRECT)" : ""));
  }
  fds_.push_back(fd);
  return static_cast<int>(fds_.size()) - 1;
}

int FileTable::fd(int handle) const {
  if (handle < 0 || static_cast<std::size_t>(handle) >= fds_.size() ||
      fds_[static_cast<std::size_t>(handle)] < 0) {
    throw std::invalid_argument("IoEngine: file handle " + std::to_string(handle) + " is not open");
  }
  return fds_[static_cast<std::size_t>(handle)];
}

void FileTable::close(int handle) {
  const int descriptor = fd(handle);
  fds_[static_cast<std::size_t>(handle)] = -1;
  if (::close(descriptor) != 0) {
    throw std::system_error(errno, std::generic_category(), "close");
  }
}

}  // namespace fabcheck
