// FileTable: the open file descriptors of one engine, by handle, closed when the engine goes.
#pragma once

#include <filesystem>
#include <vector>

#include "storage/io_engine.hpp"

namespace fabcheck {

class FileTable {
 public:
  FileTable() = default;
  ~FileTable();
  FileTable(const FileTable&) = delete;
  FileTable& operator=(const FileTable&) = delete;

  // open(2) without O_CREAT, so nothing is ever created or truncated; throws std::system_error
  // naming the path.
  int open(const std::filesystem::path& path, const OpenOptions& options);
  // The descriptor behind a handle; throws std::invalid_argument for a closed or unknown handle.
  int fd(int handle) const;
  void close(int handle);

 private:
  std::vector<int> fds_;  // -1 where closed
};

}  // namespace fabcheck
