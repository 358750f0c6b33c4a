// Checking numbers given on the command line, and quoting the command line.
#include "bench/cli/command_line.hpp"

#include <fmt/format.h>

#include <cmath>

#include "bench/sys/config_error.hpp"

namespace fabcheck {

void check_cli_number(const std::string& flag, double value, double min, double max,
                      bool min_exclusive) {
  const bool above_min = min_exclusive ? value > min : value >= min;
  if (std::isfinite(value) && above_min && value <= max) return;
  throw ConfigError(fmt::format("{} {}: expected a finite number {} {} and at most {}", flag, value,
                                min_exclusive ? "above" : "of at least", min, max));
}

std::string joined_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.find_first_of(" \t'\"$") != std::string::npos) {
      std::string quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      arg = quoted + "'";
    }
    line += (i ? " " : "") + arg;
  }
  return line;
}

}  // namespace fabcheck
