// ScratchDir: exclusive creation, bookkeeping of every created entry, removal of exactly those.
#include "storage/scratch_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "bench/sys/timer.hpp"
#include "storage/scratch_owner.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

struct ScratchDir::State {
  std::mutex mutex;
  fs::path dir;        // for messages
  DirHandle parent;    // the storage path (to remove the folder); only when it owns it
  std::string name;    // the folder's name in it
  DirHandle folder;    // the folder itself: everything is made and opened through it
  FileIdentity identity;
  bool owns_dir = false;
  bool closed = false;
  // Everything created, by creation number (removal goes newest first), relative to the folder;
  // true for directories.
  std::map<std::uint64_t, std::pair<fs::path, bool>> created;
  std::unordered_map<std::string, std::uint64_t> number_of;  // files only, for remove_file
  std::unordered_map<std::string, DirHandle> subdirs;        // folders made, by relative name
  std::uint64_t next_number = 0;

  void remember(const fs::path& entry, bool is_dir) {
    created.emplace(next_number, std::make_pair(entry, is_dir));
    if (!is_dir) number_of.emplace(entry.string(), next_number);
    ++next_number;
  }

  // `file` relative to the folder: a path create_file returned (under `dir`), or one relative
  // already. Nothing that climbs out ("..") or leads elsewhere.
  fs::path relative(const fs::path& file) const {
    fs::path rel = file;
    const fs::path base = dir.lexically_normal();
    const fs::path normal = file.lexically_normal();
    const auto [end, at] = std::mismatch(base.begin(), base.end(), normal.begin(), normal.end());
    if (end == base.end()) rel = normal.lexically_relative(base);
    for (const fs::path& part : rel) {
      if (part == ".." || rel.is_absolute() || rel.empty() || rel == ".") {
        throw std::system_error(EINVAL, std::generic_category(),
                                file.string() + " is not a file of " + dir.string());
      }
    }
    return rel;
  }
};

namespace {

bool remove_created(ScratchDir::State& state, double wait_for_others_s) {
  std::lock_guard lock(state.mutex);
  if (state.closed) return true;
  state.closed = true;
  bool ok = true;
  for (auto it = state.created.rbegin(); it != state.created.rend(); ++it) {
    const auto& [entry, is_dir] = it->second;
    if (is_dir) state.subdirs.erase(entry.string());
    const int error = is_dir ? state.folder.remove_dir(entry) : state.folder.remove_file(entry);
    if (error != 0 && error != ENOENT) {
      std::fprintf(stderr, "fabcheck: could not remove %s: %s\n", (state.dir / entry).c_str(),
                   std::strerror(error));
      ok = false;
    }
  }
  state.created.clear();
  state.number_of.clear();
  if (!state.owns_dir) return ok;
  const double deadline = now_seconds() + wait_for_others_s;
  for (;;) {
    // Only the folder made: one put in its place under the name (its own was renamed aside) stays.
    struct stat info {};
    if (state.parent.stat_entry(state.name, info) != 0) break;
    if (FileIdentity{static_cast<std::uint64_t>(info.st_dev),
                     static_cast<std::uint64_t>(info.st_ino)} != state.identity) {
      std::fprintf(stderr, "fabcheck: %s is no longer the folder this run made; left\n",
                   state.dir.c_str());
      return false;
    }
    const int error = state.parent.remove_dir(state.name);
    if (error == 0 || error == ENOENT) break;
    if (error == ENOTEMPTY && now_seconds() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    std::fprintf(stderr, "fabcheck: could not remove %s: %s\n", state.dir.c_str(),
                 std::strerror(error));
    return false;
  }
  return ok;
}

}  // namespace

std::string scratch_dir_name(const std::string& run_id) { return ".fabcheck-" + run_id; }

ScratchDir::ScratchDir(std::shared_ptr<State> state) : state_(std::move(state)) {
  // Holds the state alive on its own, so the signal thread never sees a destroyed object.
  cleanup_ = std::make_unique<ScopedCleanup>([state = state_] { remove_created(*state, 2.0); });
}

std::unique_ptr<ScratchDir> ScratchDir::create(const fs::path& parent, const std::string& name) {
  auto state = std::make_shared<State>();
  state->dir = parent / name;
  state->name = name;
  // The storage path may be writable by anyone (a shared scratch filesystem): held open, the
  // folder made in it by descriptor.
  state->parent = DirHandle::open(parent, true);
  state->folder = state->parent.make_dir(name, 0700);
  state->identity = state->folder.identity();
  state->owns_dir = true;
  auto scratch = std::unique_ptr<ScratchDir>(new ScratchDir(std::move(state)));
  // Who made it, for `fabcheck clean` when this process dies before it can remove it: written
  // through the descriptor that created it.
  const std::string text = ScratchOwner::of_this_process().to_text();
  UniqueFd record = scratch->create_open(kScratchOwnerFile, 0);
  if (const int error = write_all(record.get(), text); error != 0) {
    throw std::system_error(error, std::generic_category(),
                            "write " + (scratch->path() / kScratchOwnerFile).string());
  }
  return scratch;
}

std::unique_ptr<ScratchDir> ScratchDir::join(const fs::path& dir) {
  auto state = std::make_shared<State>();
  state->dir = dir;
  state->folder = DirHandle::open(dir);
  struct stat info {};
  if (::fstat(state->folder.fd(), &info) != 0) {
    throw std::system_error(errno, std::generic_category(), "stat " + dir.string());
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw std::system_error(EPERM, std::generic_category(),
                            dir.string() + " is writable by others: not a folder fabcheck made");
  }
  state->identity = state->folder.identity();
  return std::unique_ptr<ScratchDir>(new ScratchDir(std::move(state)));
}

ScratchDir::~ScratchDir() {
  cleanup_.reset();  // the signal thread no longer runs it; remove here instead
  remove_all(state_->owns_dir ? 2.0 : 0.0);
}

const fs::path& ScratchDir::path() const { return state_->dir; }
bool ScratchDir::owns_directory() const { return state_->owns_dir; }

fs::path ScratchDir::create_file(const std::string& relative, std::uint64_t preallocate_bytes) {
  create_open(relative, preallocate_bytes);
  return state_->dir / relative;
}

UniqueFd ScratchDir::create_open(const std::string& relative, std::uint64_t preallocate_bytes) {
  std::lock_guard lock(state_->mutex);
  const fs::path file = state_->dir / relative;
  if (state_->closed) {
    throw std::system_error(ECANCELED, std::generic_category(),
                            "create " + file.string() + " after clean-up");
  }
  const fs::path rel = state_->relative(relative);
  // In a folder made here, through its descriptor: no walk from the folder for each file (the
  // metadata pattern times creation).
  const auto in = state_->subdirs.find(rel.parent_path().string());
  UniqueFd fd = in != state_->subdirs.end() ? in->second.create_file(rel.filename(), 0600)
                                            : state_->folder.create_file(rel, 0600);
  state_->remember(rel, false);
  if (preallocate_bytes > 0) {
    const int rc = ::posix_fallocate(fd.get(), 0, static_cast<off_t>(preallocate_bytes));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
      throw std::system_error(
          rc, std::generic_category(),
          "reserve " + std::to_string(preallocate_bytes) + " bytes for " + file.string());
    }
  }
  return fd;
}

fs::path ScratchDir::create_subdir(const std::string& relative) {
  std::lock_guard lock(state_->mutex);
  const fs::path dir = state_->dir / relative;
  if (state_->closed) {
    throw std::system_error(ECANCELED, std::generic_category(),
                            "mkdir " + dir.string() + " after clean-up");
  }
  const fs::path rel = state_->relative(relative);
  const auto in = state_->subdirs.find(rel.parent_path().string());
  DirHandle made = in != state_->subdirs.end()  ? in->second.make_dir(rel.filename(), 0700)
                   : rel.parent_path().empty() ? state_->folder.make_dir(rel.filename(), 0700)
                       : state_->folder.open_dir(rel.parent_path()).make_dir(rel.filename(), 0700);
  state_->subdirs.emplace(rel.string(), std::move(made));
  state_->remember(rel, true);
  return dir;
}

UniqueFd ScratchDir::open_file(const fs::path& file, int flags) const {
  const fs::path rel = state_->relative(file);
  // One openat from the folder's descriptor: the folders on the way are this run's own (0700,
  // made here or by a rank of this run), which only their owner could change.
  const int fd = ::openat(state_->folder.fd(), rel.c_str(),
                          (flags & ~(O_CREAT | O_TRUNC)) | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "open " + (state_->dir / rel).string() +
                                ((flags & O_DIRECT) != 0 ? " (O_DIRECT)" : ""));
  }
  return UniqueFd(fd);
}

int ScratchDir::stat_file(const fs::path& file, struct stat& info) const {
  const fs::path rel = state_->relative(file);
  return ::fstatat(state_->folder.fd(), rel.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
}

int ScratchDir::folder_fd() const { return state_->folder.fd(); }

void ScratchDir::remove_file(const fs::path& file) {
  std::lock_guard lock(state_->mutex);
  const fs::path rel = state_->relative(file);
  const auto found = state_->number_of.find(rel.string());
  if (found == state_->number_of.end()) {
    throw std::logic_error("ScratchDir: " + file.string() + " was not created here");
  }
  const auto in = state_->subdirs.find(rel.parent_path().string());
  const int error = in != state_->subdirs.end() ? in->second.remove_file(rel.filename())
                                                : state_->folder.remove_file(rel);
  if (error != 0) {
    throw std::system_error(error, std::generic_category(), "unlink " + file.string());
  }
  state_->created.erase(found->second);
  state_->number_of.erase(found);
}

bool ScratchDir::remove_all(double wait_for_others_s) {
  return remove_created(*state_, wait_for_others_s);
}

}  // namespace fabcheck
