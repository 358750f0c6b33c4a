// `fabcheck clean --storage-path P`: lists the scratch folders fabcheck left under P and removes
// those whose run is gone (its process no longer exists on this host, or the host rebooted since).
#include <cstdio>
#include <system_error>

#include "bench/cli/commands.hpp"
#include "storage/scratch_owner.hpp"

namespace fabcheck {

int clean_command(const std::vector<std::string>& storage_paths, bool dry_run) {
  int exit_code = 0;
  for (const std::string& path : storage_paths) {
    std::error_code error;
    if (!std::filesystem::is_directory(path, error)) {
      std::fprintf(
          stderr, "fabcheck clean: --storage-path %s: %s\n", path.c_str(),
          std::filesystem::exists(path, error) ? "is not a directory" : "no such directory");
      return 2;
    }
    std::vector<LeftScratch> found;
    try {
      found = find_left_scratch(path);
    } catch (const std::system_error& failure) {
      std::fprintf(stderr, "fabcheck clean: %s\n", failure.what());
      return 2;
    }
    std::printf("%s: %zu fabcheck scratch folder(s)\n", path.c_str(), found.size());
    for (const LeftScratch& left : found) {
      std::string line = left.describe();
      if (left.state == LeftScratch::State::gone) {
        std::string problem;
        if (dry_run) {
          line += ": would be removed";
        } else if (remove_left_scratch(left, problem)) {
          line += ": removed";
        } else {
          line += ": " + problem;
          exit_code = 3;
        }
      }
      std::printf("  %s\n", line.c_str());
    }
  }
  return exit_code;
}

}  // namespace fabcheck
