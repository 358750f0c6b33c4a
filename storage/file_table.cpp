// FileTable: the descriptors of the files an engine works on, closed with it.
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

int FileTable::adopt(UniqueFd file) {
  if (!file) throw std::invalid_argument("IoEngine: no file to adopt");
  fds_.push_back(file.release());
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
