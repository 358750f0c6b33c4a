// The profile folders and --profile NAME, FILE or auto.
#include "bench/cli/profile_lookup.hpp"

#include <cstdlib>
#include <system_error>

#include "kernels/profile_choice.hpp"

namespace fabcheck {

std::vector<std::filesystem::path> profile_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* dir = std::getenv("FABCHECK_PROFILE_DIR"); dir && *dir) dirs.emplace_back(dir);
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) dirs.push_back(exe.parent_path().parent_path() / "share" / "fabcheck" / "profiles");
  dirs.push_back(std::filesystem::path(FABCHECK_SOURCE_DIR) / "results" / "profiles");
  return dirs;
}

Profile load_profile_for(const std::string& name_or_file, const Registry& registry,
                         std::string* why) {
  std::string name = name_or_file;
  if (name == "auto") {
    const ProfileChoice choice = choose_profile_for_node();
    name = choice.name;
    if (why) *why = "auto: " + choice.reason;
  } else if (why) {
    *why = "given";
  }
  return registry.load_profile(resolve_profile(name, profile_dirs()));
}

}  // namespace fabcheck
