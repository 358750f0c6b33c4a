// ConfigError: bad user input (file, line, value), which the CLI turns into exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace fabcheck {

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(message) {}
  // "profile.toml:14: unknown metric \"busbwx\""
  ConfigError(const std::string& file, long line, const std::string& message)
      : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                           message) {}
};

}  // namespace fabcheck
