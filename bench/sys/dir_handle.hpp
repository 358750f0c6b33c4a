// DirHandle: every file fabcheck writes is created relative to a directory descriptor it holds
// (openat O_CREAT|O_EXCL|O_NOFOLLOW), written through the descriptor it created and never reopened
// by path, so nobody who can rename or replace a folder on the way can send root's writes elsewhere.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fabcheck {

// An owned file descriptor, closed with the object.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Which inode a directory or file is (st_dev, st_ino): a process that knows a directory only by
// its name checks it is still the one made.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool operator==(const FileIdentity&) const = default;
};

class DirHandle {
 public:
  DirHandle() = default;

  // Opens an existing directory (O_DIRECTORY; its last component must not be a symbolic link
  // unless `follow_link`, for a path the user gave). Throws std::system_error naming the path.
  static DirHandle open(const std::filesystem::path& path, bool follow_link = false);
  // As open(), for a folder fabcheck writes results into: refuses one owned by another user
  // (anyone but this user and root) or writable by group or others without the sticky bit, with
  // ConfigError naming it and why (exit 2). `what` names the option ("--out").
  static DirHandle open_output_folder(const std::filesystem::path& path, const std::string& what);
  // The output folder `path` (created with its parents when missing, mode 0755), opened and
  // checked as open_output_folder() does.
  static DirHandle make_output_folder(const std::filesystem::path& path, const std::string& what);
  // Why `info` (of a folder) is unsafe to write results into; "" when it is safe.
  static std::string unsafe_folder_reason(const struct stat& info);

  bool valid() const { return static_cast<bool>(fd_); }
  int fd() const { return fd_.get(); }
  // The path it was opened by, for messages only (the descriptor is what is used).
  const std::filesystem::path& path() const { return path_; }
  FileIdentity identity() const;

  // mkdirat + openat(O_DIRECTORY|O_NOFOLLOW) of the new folder, checked to be a folder this user
  // owns: what is written into it goes to the folder made, whatever is renamed meanwhile. Throws
  // std::system_error (EEXIST when the name is taken).
  DirHandle make_dir(const std::string& name, mode_t mode) const;
  // make_dir(`name`), or when that is taken, `name`-2, `name`-3, ... (at most `attempts` tries);
  // `made` is the name it got.
  DirHandle make_unique_dir(const std::string& name, mode_t mode, std::string& made,
                            int attempts = 100) const;
  // Opens an existing folder below this one; no component may be a link or "..".
  DirHandle open_dir(const std::filesystem::path& relative) const;

  // Creates a file below this folder (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, `flags` adding the
  // access mode), intermediate components opened O_NOFOLLOW. Throws std::system_error.
  UniqueFd create_file(const std::filesystem::path& relative, mode_t mode,
                       int flags = O_WRONLY) const;
  // Opens an existing file below this folder (O_NOFOLLOW on every component, never O_CREAT).
  UniqueFd open_file(const std::filesystem::path& relative, int flags) const;

  // Writes `bytes` as `name` atomically: a temporary file created exclusively in this folder,
  // written, fsynced, then renamed over `name` (renameat) when `replace`, else linked to `name`
  // (linkat, failing with EEXIST: nothing is ever written over). Throws std::system_error.
  void publish_file(const std::string& name, std::string_view bytes, mode_t mode,
                    bool replace = true) const;
  // renameat within this folder.
  void rename(const std::string& from, const std::string& to) const;
  // unlinkat; returns errno (0 when removed).
  int remove_file(const std::filesystem::path& relative) const;
  int remove_dir(const std::filesystem::path& relative) const;
  // fstatat without following a link; returns errno (0 when `info` is filled).
  int stat_entry(const std::filesystem::path& relative, struct stat& info) const;
  // fsync of the folder itself (after a rename, so the new name survives a crash).
  void sync() const;

 private:
  DirHandle(UniqueFd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  // The folder holding the last component of `relative` (this one's descriptor when it has one
  // component, else the last folder opened on the way, O_NOFOLLOW) and that component's name.
  struct Parent {
    int fd;
    UniqueFd owned;
    std::string leaf;
  };
  Parent walk(const std::filesystem::path& relative) const;

  UniqueFd fd_;
  std::filesystem::path path_;
};

// Writes all of `bytes` at `fd`'s offset (EINTR retried); returns 0 or the errno (ENOSPC for a
// write that made no progress).
int write_all(int fd, std::string_view bytes);

// A regular file's content, at most `limit` bytes: opened O_NOFOLLOW|O_NONBLOCK (a FIFO never
// blocks), checked with fstat to be a regular file no larger than `limit` (a link, a FIFO, a
// device, a 2 GB sparse file are refused, never read). nullopt with `why` set when refused.
std::optional<std::string> read_small_file(const DirHandle& dir,
                                           const std::filesystem::path& relative,
                                           std::size_t limit, std::string* why = nullptr);
// The same for a file given by path (its last component must not be a link).
std::optional<std::string> read_small_file(const std::filesystem::path& path, std::size_t limit,
                                           std::string* why = nullptr);

}  // namespace fabcheck
