// Reading one small sysfs attribute file as trimmed text, and saying which could not be read.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

// A value that is there but could not be read (permission, I/O error) or understood (text that
// is not what the attribute holds): never taken for a healthy one.
struct SysfsProblem {
  std::string path;
  std::string what;  // "cannot read: Permission denied", "holds \"banana\", not a rate"
  std::string describe() const { return path + ": " + what; }
};

// The file's content without surrounding whitespace (at most 64 KiB); nullopt when the attribute
// does not exist (or is not a file), and also when it cannot be read, which is then added to
// `problems` (when given).
std::optional<std::string> read_sysfs_text(const std::filesystem::path& file,
                                           std::vector<SysfsProblem>* problems = nullptr);

// The entries of a sysfs directory, sorted; none when it does not exist. One that cannot be listed
// (permission) is added to `problems` (when given).
std::vector<std::filesystem::path> list_sysfs_dir(const std::filesystem::path& dir,
                                                  std::vector<SysfsProblem>* problems = nullptr);

}  // namespace fabcheck
