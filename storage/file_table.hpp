// FileTable: the open file descriptors of one engine, by handle, closed when the engine goes.
#pragma once

#include <filesystem>
#include <vector>

#include "bench/sys/dir_handle.hpp"
#include "storage/io_engine.hpp"

namespace fabcheck {

class FileTable {
 public:
  FileTable() = default;
  ~FileTable();
  FileTable(const FileTable&) = delete;
  FileTable& operator=(const FileTable&) = delete;

  // Keeps an open descriptor (ScratchDir::open_file's) until close(); returns its handle.
  int adopt(UniqueFd file);
  // The descriptor behind a handle; throws std::invalid_argument for a closed or unknown handle.
  int fd(int handle) const;
  void close(int handle);

 private:
  std::vector<int> fds_;  // -1 where closed
};

}  // namespace fabcheck
