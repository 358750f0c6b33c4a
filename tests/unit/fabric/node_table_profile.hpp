// A test profile holding only a [node] table, each key on its own line from line 3 of "p.toml",
// for the tests of the judges that read [node] keys.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "results/profile.hpp"

namespace fabcheck::testing {

inline Profile profile_with(std::map<std::string, std::string> node) {
  Profile profile;
  profile.name = "p";
  profile.path = "p.toml";
  long line = 3;
  for (const auto& [key, value] : node) profile.node_lines[key] = line++;
  profile.node = std::move(node);
  return profile;
}

}  // namespace fabcheck::testing
