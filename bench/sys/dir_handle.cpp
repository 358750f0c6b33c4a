// Directory descriptors, and creating, publishing and reading files relative to them.
#include "bench/sys/dir_handle.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>
#include <vector>

#include "bench/sys/config_error.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

std::string kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a file";
}

// The components of a path below a folder: none may be empty, ".", ".." or absolute.
std::vector<std::string> components_of(const fs::path& relative, const fs::path& base) {
  std::vector<std::string> parts;
  if (relative.empty() || relative.is_absolute()) {
    fail(EINVAL, (base / relative).string() + ": not a path below " + base.string());
  }
  for (const fs::path& part : relative) {
    const std::string name = part.string();
    if (name.empty() || name == ".") continue;
    if (name == "..") fail(EINVAL, (base / relative).string() + ": \"..\" is not below the folder");
    parts.push_back(name);
  }
  if (parts.empty()) fail(EINVAL, (base / relative).string() + ": names no file");
  return parts;
}

std::string random_suffix() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(generator()));
  return text;
}

}  // namespace

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string DirHandle::unsafe_folder_reason(const struct stat& info) {
  if (!S_ISDIR(info.st_mode)) return "is " + kind_of(info.st_mode) + ", not a directory";
  if (info.st_uid != 0 && info.st_uid != ::geteuid()) {
    return "is owned by uid " + std::to_string(info.st_uid) +
           " (another user, who could rename or replace what is written there)";
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (info.st_mode & S_ISVTX) == 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(info.st_mode & 07777));
    return std::string("is writable by ") + ((info.st_mode & S_IWOTH) ? "others" : "its group") +
           " without the sticky bit (mode " + mode +
           "), so another user could rename or replace what is written there";
  }
  return "";
}

DirHandle DirHandle::open(const fs::path& path, bool follow_link) {
  const fs::path name = path.empty() ? fs::path(".") : path;
  const int fd =
      ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow_link ? 0 : O_NOFOLLOW));
  if (fd < 0) {
    const int error = errno;
    fail(error, "open folder " + name.string() + (error == ELOOP ? " (a symbolic link)" : ""));
  }
  return DirHandle(UniqueFd(fd), name);
}

DirHandle DirHandle::open_output_folder(const fs::path& path, const std::string& what) {
  // Links in a path the user gave are the user's; the folder they lead to is checked on the
  // descriptor itself.
  const fs::path name = path.empty() ? fs::path(".") : path;
  const int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    throw ConfigError(name.string(), 0,
                      what + ": cannot open the folder: " + std::string(std::strerror(errno)));
  }
  DirHandle dir(UniqueFd(fd), name);
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(errno, "stat " + name.string());
  const std::string unsafe = unsafe_folder_reason(info);
  if (!unsafe.empty()) {
    throw ConfigError(name.string(), 0,
                      what + ": refusing to write results into a folder that " + unsafe +
                          " (use a folder of this user's or root's that only they can write)");
  }
  return dir;
}

DirHandle DirHandle::make_output_folder(const fs::path& path, const std::string& what) {
  fs::path prefix;
  for (const fs::path& part : path) {
    prefix /= part;
    if (part == "/" || part.empty()) continue;
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      throw ConfigError(prefix.string(), 0,
                        what + ": cannot create the folder: " + std::string(std::strerror(errno)));
    }
  }
  return open_output_folder(path, what);
}

FileIdentity DirHandle::identity() const {
  struct stat info {};
  if (::fstat(fd(), &info) != 0) fail(errno, "stat " + path_.string());
  return {static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino)};
}

DirHandle::Parent DirHandle::walk(const fs::path& relative) const {
  const std::vector<std::string> parts = components_of(relative, path_);
  Parent parent{fd(), UniqueFd(), parts.back()};
  fs::path where = path_;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    where /= parts[i];
    const int next =
        ::openat(parent.fd, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) fail(errno, "open folder " + where.string());
    parent.owned.reset(next);
    parent.fd = next;
  }
  return parent;
}

DirHandle DirHandle::make_dir(const std::string& name, mode_t mode) const {
  const fs::path where = path_ / name;
  if (name.find('/') != std::string::npos) fail(EINVAL, "mkdir " + where.string());
  const Parent parent = walk(name);
  const char* leaf = parent.leaf.c_str();
  if (::mkdirat(parent.fd, leaf, mode) != 0) fail(errno, "mkdir " + where.string());
  const int fd = ::openat(parent.fd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail(errno, "open folder " + where.string() + " just made");
  DirHandle made(UniqueFd(fd), where);
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(errno, "stat " + where.string());
  // Between mkdirat and openat someone who can write the parent could have put another folder
  // under the name: only one this user owns is the one made (nobody else can make it theirs).
  if (!S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) {
    fail(EEXIST, "mkdir " + where.string() + ": the folder made was replaced by another");
  }
  return made;
}

DirHandle DirHandle::make_unique_dir(const std::string& name, mode_t mode, std::string& made,
                                     int attempts) const {
  for (int attempt = 1;; ++attempt) {
    const std::string candidate = attempt == 1 ? name : name + "-" + std::to_string(attempt);
    try {
      DirHandle dir = make_dir(candidate, mode);
      made = candidate;
      return dir;
    } catch (const std::system_error& error) {
      if (error.code().value() != EEXIST || attempt >= attempts) throw;
    }
  }
}

DirHandle DirHandle::open_dir(const fs::path& relative) const {
  const Parent parent = walk(relative);
  const int fd =
      ::openat(parent.fd, parent.leaf.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail(errno, "open folder " + (path_ / relative).string());
  return DirHandle(UniqueFd(fd), path_ / relative);
}

UniqueFd DirHandle::create_file(const fs::path& relative, mode_t mode, int flags) const {
  const Parent parent = walk(relative);
  const int fd = ::openat(parent.fd, parent.leaf.c_str(),
                          (flags & ~O_TRUNC) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) fail(errno, "create " + (path_ / relative).string());
  return UniqueFd(fd);
}

UniqueFd DirHandle::open_file(const fs::path& relative, int flags) const {
  const Parent parent = walk(relative);
  const int fd = ::openat(parent.fd, parent.leaf.c_str(),
                          (flags & ~(O_CREAT | O_TRUNC)) | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail(errno, "open " + (path_ / relative).string());
  return UniqueFd(fd);
}

void DirHandle::publish_file(const std::string& name, std::string_view bytes, mode_t mode,
                             bool replace) const {
  const fs::path where = path_ / name;
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    fail(EINVAL, "write " + where.string());
  }
  const std::string temporary = "." + name + ".tmp-" + random_suffix();
  UniqueFd file = create_file(temporary, 0600);
  auto give_up = [&](int error, const std::string& what) {
    ::unlinkat(fd(), temporary.c_str(), 0);
    fail(error, what);
  };
  if (::fchmod(file.get(), mode) != 0) give_up(errno, "chmod " + (path_ / temporary).string());
  if (const int error = write_all(file.get(), bytes); error != 0) {
    give_up(error, "write " + (path_ / temporary).string());
  }
  if (::fsync(file.get()) != 0 && errno != EINVAL && errno != EROFS) {
    give_up(errno, "fsync " + (path_ / temporary).string());
  }
  file.reset();
  if (replace) {
    if (::renameat(fd(), temporary.c_str(), fd(), name.c_str()) != 0) {
      give_up(errno, "rename " + (path_ / temporary).string() + " to " + where.string());
    }
  } else {
    if (::linkat(fd(), temporary.c_str(), fd(), name.c_str(), 0) != 0) {
      give_up(errno, "create " + where.string());
    }
    ::unlinkat(fd(), temporary.c_str(), 0);
  }
}

void DirHandle::rename(const std::string& from, const std::string& to) const {
  if (::renameat(fd(), from.c_str(), fd(), to.c_str()) != 0) {
    fail(errno, "rename " + (path_ / from).string() + " to " + (path_ / to).string());
  }
}

int DirHandle::remove_file(const fs::path& relative) const {
  try {
    const Parent parent = walk(relative);
    return ::unlinkat(parent.fd, parent.leaf.c_str(), 0) == 0 ? 0 : errno;
  } catch (const std::system_error& error) {
    return error.code().value();
  }
}

int DirHandle::remove_dir(const fs::path& relative) const {
  try {
    const Parent parent = walk(relative);
    return ::unlinkat(parent.fd, parent.leaf.c_str(), AT_REMOVEDIR) == 0 ? 0 : errno;
  } catch (const std::system_error& error) {
    return error.code().value();
  }
}

int DirHandle::stat_entry(const fs::path& relative, struct stat& info) const {
  try {
    const Parent parent = walk(relative);
    return ::fstatat(parent.fd, parent.leaf.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
  } catch (const std::system_error& error) {
    return error.code().value();
  }
}

void DirHandle::sync() const {
  if (::fsync(fd()) != 0 && errno != EINVAL && errno != EROFS) fail(errno, "fsync " + path_.string());
}

int write_all(int fd, std::string_view bytes) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

namespace {

std::optional<std::string> read_open_file(UniqueFd file, std::size_t limit, std::string* why) {
  auto refuse = [&](std::string reason) -> std::optional<std::string> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) return refuse(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return refuse("is " + kind_of(info.st_mode) + ", not a regular file");
  if (static_cast<std::uint64_t>(info.st_size) > limit) {
    return refuse("is " + std::to_string(info.st_size) + " bytes, more than the " +
                  std::to_string(limit) + " it may hold");
  }
  std::string content(limit + 1, '\0');
  std::size_t got = 0;
  while (got < content.size()) {
    const ssize_t n = ::read(file.get(), content.data() + got, content.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return refuse(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > limit) return refuse("holds more than the " + std::to_string(limit) + " bytes it may");
  content.resize(got);
  return content;
}

std::string open_error(int error) {
  if (error == ELOOP) return "is a symbolic link, not a regular file";
  if (error == ENOENT) return "does not exist";
  return std::string("cannot open: ") + std::strerror(error);
}

}  // namespace

std::optional<std::string> read_small_file(const DirHandle& dir, const fs::path& relative,
                                           std::size_t limit, std::string* why) {
  try {
    return read_open_file(dir.open_file(relative, O_RDONLY | O_NONBLOCK), limit, why);
  } catch (const std::system_error& error) {
    if (why) *why = open_error(error.code().value());
    return std::nullopt;
  }
}

std::optional<std::string> read_small_file(const fs::path& path, std::size_t limit,
                                           std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (why) *why = open_error(errno);
    return std::nullopt;
  }
  return read_open_file(UniqueFd(fd), limit, why);
}

}  // namespace fabcheck
