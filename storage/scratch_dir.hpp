// ScratchDir: the only place storage probes write. PATH/.fabcheck-<run id>/ is created exclusively
// (mkdirat) and held open; files in it are created with O_EXCL|O_NOFOLLOW relative to that
// descriptor, opened again only through it (open_file), and exactly those (and the directory, when
// this process created it) are removed at the end, after an error, and on SIGINT/SIGTERM. Whoever
// can write PATH may rename the folder or put links in its place: nothing written follows them.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "bench/core/interrupt.hpp"
#include "bench/sys/dir_handle.hpp"

namespace fabcheck {

class ScratchDir {
 public:
  // Creates parent/name with mkdir(2) and a record of who made it (scratch_owner.hpp); throws
  // std::system_error naming the path when it exists or cannot be made. The directory is removed
  // with this object.
  static std::unique_ptr<ScratchDir> create(const std::filesystem::path& parent,
                                            const std::string& name);
  // Uses a directory another rank created (a shared filesystem): only the files this process
  // creates are removed here; the creator removes the directory. Throws when it is not there, is
  // a link, or is writable by group or others.
  static std::unique_ptr<ScratchDir> join(const std::filesystem::path& dir);

  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const;
  bool owns_directory() const;

  // Creates a file (O_CREAT | O_EXCL, mode 0600) at a path relative to the directory and remembers
  // it; reserves `preallocate_bytes` with posix_fallocate where the filesystem supports it (as fio
  // lays out its files), so timed writes do not also extend the file. Throws std::system_error
  // naming the path, or once the directory was cleaned up.
  std::filesystem::path create_file(const std::string& relative,
                                    std::uint64_t preallocate_bytes = 0);
  // Creates a subdirectory and remembers it.
  std::filesystem::path create_subdir(const std::string& relative);
  // Opens a file of the folder (`file` as create_file returned it, or relative to the folder)
  // through the folder's descriptor with O_NOFOLLOW, never by its path from the root; `flags`
  // gives the access (O_RDONLY, O_WRONLY | O_DIRECT, ...). Throws std::system_error naming it.
  UniqueFd open_file(const std::filesystem::path& file, int flags) const;
  // fstatat of a file of the folder (not following a link); returns errno, 0 when `info` is set.
  int stat_file(const std::filesystem::path& file, struct stat& info) const;
  // The folder's descriptor (syncfs, fstatvfs).
  int folder_fd() const;
  // Removes one file this object created (unlink) and forgets it; throws on failure.
  void remove_file(const std::filesystem::path& file);

  // Removes what this object created, newest first, then the directory when it owns it. When other
  // ranks still have files in a shared directory, waits up to `wait_for_others_s` for them to go.
  // Idempotent; no create_* is allowed afterwards. Returns false when something could not be
  // removed (reported on stderr).
  bool remove_all(double wait_for_others_s = 0);

  struct State;

 private:
  // create_file, keeping the descriptor it created.
  UniqueFd create_open(const std::string& relative, std::uint64_t preallocate_bytes);
  explicit ScratchDir(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
  std::unique_ptr<ScopedCleanup> cleanup_;
};

// The directory name for a run: ".fabcheck-<run id>".
std::string scratch_dir_name(const std::string& run_id);

}  // namespace fabcheck
