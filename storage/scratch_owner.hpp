// Who made a scratch folder: a record inside it (host, process and when it started), so that
// `fabcheck clean` can tell scratch left by a run whose processes are gone from a run in progress.
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

// The record's file name inside a scratch folder.
inline constexpr const char* kScratchOwnerFile = ".fabcheck-owner";

struct ScratchOwner {
  std::string host;
  pid_t pid = 0;
  std::string process_start;  // /proc/PID/stat field 22: the same pid later is another process
  std::string boot_id;        // /proc/sys/kernel/random/boot_id: after a reboot, nothing runs

  // This process, now.
  static ScratchOwner of_this_process();
  std::string to_text() const;  // "host=...\npid=...\nstart=...\nboot=...\n"
  // nullopt when the text is not such a record.
  static std::optional<ScratchOwner> from_text(const std::string& text);
};

// What `fabcheck clean` finds under a storage path.
struct LeftScratch {
  std::filesystem::path dir;
  std::optional<ScratchOwner> owner;  // none: no record (an older fabcheck, or not fabcheck's)
  enum class State { gone, running, other_host, unknown } state = State::unknown;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::string describe() const;  // one line: what it is, who made it, and what clean does
};

// Every ".fabcheck-*" folder directly under `path` (symbolic links are never followed), sorted.
// Throws std::system_error naming the path when it cannot be listed.
std::vector<LeftScratch> find_left_scratch(const std::filesystem::path& path);

// Removes a folder whose state is `gone` (everything in it, links not followed); returns false
// with `problem` set when something could not be removed.
bool remove_left_scratch(const LeftScratch& left, std::string& problem);

}  // namespace fabcheck
