// ScratchDir: exclusive creation, bookkeeping of every created entry, removal of exactly those.
#include "storage/scratch_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  fs::path dir;
  bool owns_dir = false;
  bool closed = false;
  // Everything created, by creation number (removal goes newest first); true for directories.
  std::map<std::uint64_t, std::pair<fs::path, bool>> created;
  std::unordered_map<std::string, std::uint64_t> number_of;  // files only, for remove_file
  std::uint64_t next_number = 0;

  void remember(const fs::path& entry, bool is_dir) {
    created.emplace(next_number, std::make_pair(entry, is_dir));
    if (!is_dir) number_of.emplace(entry.string(), next_number);
    ++next_number;
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
    const int rc = is_dir ? ::rmdir(entry.c_str()) : ::unlink(entry.c_str());
    if (rc != 0 && errno != ENOENT) {
      std::fprintf(stderr, "fabcheck: could not remove %s: %s\n", entry.c_str(),
                   std::strerror(errno));
      ok = false;
    }
  }
  state.created.clear();
  state.number_of.clear();
  if (!state.owns_dir) return ok;
  const double deadline = now_seconds() + wait_for_others_s;
  while (::rmdir(state.dir.c_str()) != 0) {
    if (errno == ENOENT) break;
    if (errno == ENOTEMPTY && now_seconds() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    std::fprintf(stderr, "fabcheck: could not remove %s: %s\n", state.dir.c_str(),
                 std::strerror(errno));
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
  if (::mkdir(state->dir.c_str(), 0700) != 0) {
    throw std::system_error(errno, std::generic_category(), "mkdir " + state->dir.string());
  }
  state->owns_dir = true;
  auto scratch = std::unique_ptr<ScratchDir>(new ScratchDir(std::move(state)));
  // Who made it, for `fabcheck clean` when this process dies before it can remove it.
  const fs::path record = scratch->create_file(kScratchOwnerFile);
  const std::string text = ScratchOwner::of_this_process().to_text();
  const int fd = ::open(record.c_str(), O_WRONLY | O_CLOEXEC);
  const bool written =
      fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!written) throw std::system_error(error, std::generic_category(), "write " + record.string());
  return scratch;
}

std::unique_ptr<ScratchDir> ScratchDir::join(const fs::path& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    throw std::system_error(errno, std::generic_category(), "stat " + dir.string());
  }
  if (!S_ISDIR(info.st_mode)) {
    throw std::system_error(ENOTDIR, std::generic_category(), dir.string());
  }
  auto state = std::make_shared<State>();
  state->dir = dir;
  return std::unique_ptr<ScratchDir>(new ScratchDir(std::move(state)));
}

ScratchDir::~ScratchDir() {
  cleanup_.reset();  // the signal thread no longer runs it; remove here instead
  remove_all(state_->owns_dir ? 2.0 : 0.0);
}

const fs::path& ScratchDir::path() const { return state_->dir; }
bool ScratchDir::owns_directory() const { return state_->owns_dir; }

fs::path ScratchDir::create_file(const std::string& relative, std::uint64_t preallocate_bytes) {
  std::lock_guard lock(state_->mutex);
  const fs::path file = state_->dir / relative;
  if (state_->closed) {
    throw std::system_error(ECANCELED, std::generic_category(),
                            "create " + file.string() + " after clean-up");
  }
  const int fd = ::open(file.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "create " + file.string());
  state_->remember(file, false);
  if (preallocate_bytes > 0) {
    const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(preallocate_bytes));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
      ::close(fd);
      throw std::system_error(
          rc, std::generic_category(),
          "reserve " + std::to_string(preallocate_bytes) + " bytes for " + file.string());
    }
  }
  ::close(fd);
  return file;
}

fs::path ScratchDir::create_subdir(const std::string& relative) {
  std::lock_guard lock(state_->mutex);
  const fs::path dir = state_->dir / relative;
  if (state_->closed) {
    throw std::system_error(ECANCELED, std::generic_category(),
                            "mkdir " + dir.string() + " after clean-up");
  }
  if (::mkdir(dir.c_str(), 0700) != 0) {
    throw std::system_error(errno, std::generic_category(), "mkdir " + dir.string());
  }
  state_->remember(dir, true);
  return dir;
}

void ScratchDir::remove_file(const fs::path& file) {
  std::lock_guard lock(state_->mutex);
  const auto found = state_->number_of.find(file.string());
  if (found == state_->number_of.end()) {
    throw std::logic_error("ScratchDir: " + file.string() + " was not created here");
  }
  if (::unlink(file.c_str()) != 0) {
    throw std::system_error(errno, std::generic_category(), "unlink " + file.string());
  }
  state_->created.erase(found->second);
  state_->number_of.erase(found);
}

bool ScratchDir::remove_all(double wait_for_others_s) {
  return remove_created(*state_, wait_for_others_s);
}

}  // namespace fabcheck
