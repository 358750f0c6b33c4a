// Scratch folder ownership records, and finding and removing scratch left by runs that are gone.
#include "storage/scratch_owner.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "bench/core/world.hpp"
#include "bench/sys/dir_handle.hpp"
#include "results/units.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

// An owner record is four short lines; anything larger is not one.
constexpr std::size_t kOwnerRecordLimit = 4096;

std::string read_first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// Field 22 of /proc/PID/stat (after the command name in parentheses); "" when the process is gone.
std::string start_time_of(pid_t pid) {
  const std::string stat = read_first_line("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int number = 3; number <= 22 && fields >> field; ++number) {
    if (number == 22) return field;
  }
  return "";
}

std::string this_boot() { return read_first_line("/proc/sys/kernel/random/boot_id"); }

}  // namespace

ScratchOwner ScratchOwner::of_this_process() {
  return {local_hostname(), ::getpid(), start_time_of(::getpid()), this_boot()};
}

std::string ScratchOwner::to_text() const {
  return "host=" + host + "\npid=" + std::to_string(pid) + "\nstart=" + process_start +
         "\nboot=" + boot_id + "\n";
}

std::optional<ScratchOwner> ScratchOwner::from_text(const std::string& text) {
  ScratchOwner owner;
  std::istringstream lines(text);
  bool has_pid = false;
  for (std::string line; std::getline(lines, line);) {
    const auto equals = line.find('=');
    if (equals == std::string::npos) return std::nullopt;
    const std::string key = line.substr(0, equals);
    const std::string value = line.substr(equals + 1);
    if (key == "host") {
      owner.host = value;
    } else if (key == "pid") {
      try {
        owner.pid = static_cast<pid_t>(std::stol(value));
        has_pid = owner.pid > 0;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    } else if (key == "start") {
      owner.process_start = value;
    } else if (key == "boot") {
      owner.boot_id = value;
    }
  }
  if (owner.host.empty() || !has_pid) return std::nullopt;
  return owner;
}

std::string LeftScratch::describe() const {
  const std::string what =
      dir.string() + " (" + std::to_string(files) + " file(s), " + format_bytes(bytes) + ")";
  if (!owner) return what + ": no owner record (an older fabcheck's, or not fabcheck's): left";
  const std::string by = "made by pid " + std::to_string(owner->pid) + " on " + owner->host;
  switch (state) {
    case State::gone:
      return what + ": " + by + ", which is gone";
    case State::running:
      return what + ": " + by + ", still running: left";
    case State::other_host:
      return what + ": " + by + ": left (run `fabcheck clean` on " + owner->host + ")";
    case State::unknown:
      break;
  }
  return what + ": " + by + ": left";
}

std::vector<LeftScratch> find_left_scratch(const fs::path& path) {
  std::error_code error;
  fs::directory_iterator it(path, error);
  if (error) throw std::system_error(error, "cannot list " + path.string());
  const DirHandle storage = DirHandle::open(path, true);
  const std::string host = local_hostname();
  const std::string boot = this_boot();
  std::vector<LeftScratch> found;
  for (fs::directory_iterator end; it != end; it.increment(error)) {
    if (error) throw std::system_error(error, "cannot list " + path.string());
    const std::string name = it->path().filename().string();
    if (name.rfind(".fabcheck-", 0) != 0) continue;
    if (!it->is_directory(error) || it->is_symlink(error)) continue;
    LeftScratch left;
    left.dir = it->path();
    // Anyone who can write the storage path can put anything under the record's name (a FIFO,
    // a link to /dev/zero, a sparse file of gigabytes): read only a small regular file, opened
    // through the folder's descriptor without following links and without waiting on a FIFO.
    try {
      const DirHandle folder = storage.open_dir(name);
      if (const auto text = read_small_file(folder, kScratchOwnerFile, kOwnerRecordLimit)) {
        left.owner = ScratchOwner::from_text(*text);
      }
    } catch (const std::system_error&) {
      // Not a folder any more (replaced meanwhile): no record.
    }
    if (left.owner) {
      if (left.owner->host != host) {
        left.state = LeftScratch::State::other_host;
      } else if (left.owner->boot_id != boot ||
                 start_time_of(left.owner->pid) != left.owner->process_start) {
        left.state = LeftScratch::State::gone;  // rebooted since, or that pid is another process
      } else {
        left.state = LeftScratch::State::running;
      }
    }
    for (fs::recursive_directory_iterator file(left.dir, error), last; !error && file != last;
         file.increment(error)) {
      if (file->is_regular_file(error) && !file->is_symlink(error)) {
        ++left.files;
        left.bytes += file->file_size(error);
      }
    }
    found.push_back(std::move(left));
  }
  std::sort(found.begin(), found.end(),
            [](const LeftScratch& a, const LeftScratch& b) { return a.dir < b.dir; });
  return found;
}

bool remove_left_scratch(const LeftScratch& left, std::string& problem) {
  if (left.state != LeftScratch::State::gone) {
    problem = "not removed: its run is not known to be gone";
    return false;
  }
  std::error_code error;
  fs::remove_all(left.dir, error);  // removes links themselves, never what they point to
  if (error) {
    problem = "cannot remove " + left.dir.string() + ": " + error.message();
    return false;
  }
  return true;
}

}  // namespace fabcheck
