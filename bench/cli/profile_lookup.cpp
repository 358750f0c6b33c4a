// The profile folders (given, then installed beside the binary) and --profile NAME, FILE or auto.
#include "bench/cli/profile_lookup.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "kernels/profile_choice.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

// A folder named by the user must be there and readable, or the run stops naming it.
void check_given_dir(const std::string& dir, const std::string& given_by) {
  const std::string what = describe_path(dir);
  if (what != "a directory") {
    throw ConfigError(given_by + " " + dir + ": is " + what + ", not a folder of profiles");
  }
  if (::access(dir.c_str(), R_OK | X_OK) != 0) {
    throw ConfigError(given_by + " " + dir + ": a folder this user cannot read");
  }
}

}  // namespace

fs::path installed_profile_dir() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return exe.parent_path().parent_path() / "share" / "fabcheck" / "profiles";
}

std::vector<fs::path> profile_dirs(const std::vector<std::string>& given_dirs) {
  std::vector<fs::path> dirs;
  for (const std::string& dir : given_dirs) {
    check_given_dir(dir, "--profile-dir");
    dirs.emplace_back(dir);
  }
  if (const char* path = std::getenv("FABCHECK_PROFILE_PATH"); path && *path) {
    const std::string list = path;
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      const std::string dir = list.substr(start, end - start);
      start = end + 1;
      if (dir.empty()) continue;
      check_given_dir(dir, "FABCHECK_PROFILE_PATH entry");
      dirs.emplace_back(dir);
    }
  }
  if (fs::path installed = installed_profile_dir(); !installed.empty()) dirs.push_back(installed);
  return dirs;
}

Profile load_profile_for(const std::string& name_or_file, const Registry& registry,
                         std::string* why, const std::vector<std::string>& given_dirs,
                         const std::string& sysfs_root) {
  const std::vector<fs::path> dirs = profile_dirs(given_dirs);
  std::string name = name_or_file;
  if (name == "auto") {
    const ProfileChoice choice = choose_profile_for_node(sysfs_root);
    if (choice.name.empty()) {
      // generic-cpu here would waive every GPU check of a GPU node and pass it.
      throw ConfigError("--profile auto: " + choice.reason +
                        "; give --profile NAME|FILE for this node (generic-cpu judges it as a "
                        "node without GPUs)");
    }
    name = choice.name;
    if (why) *why = "auto: " + choice.reason;
  } else if (why) {
    *why = "given";
  }
  fs::path file;
  try {
    file = resolve_profile(name, dirs);
  } catch (const ConfigError& error) {
    const fs::path installed = installed_profile_dir();
    std::error_code ignored;
    if (installed.empty() || !fs::is_directory(installed, ignored)) {
      throw ConfigError(std::string(error.what()) + "; the profiles installed with the binary " +
                        "belong in " + (installed.empty() ? "<prefix>/share/fabcheck/profiles"
                                                          : installed.string()) +
                        ", which is missing: install the package, or give --profile-dir DIR or " +
                        "FABCHECK_PROFILE_PATH");
    }
    throw;
  }
  return registry.load_profile(file);
}

void override_node_setting(Profile& profile, const std::string& key, int value) {
  // hcas and its older name are one setting: the flag replaces either.
  if (key == "hcas") profile.node.erase("ib_ports");
  profile.node[key] = std::to_string(value);
  profile.node_lines[key] = 0;
}

}  // namespace fabcheck
