// The command line: its numbers checked, and the line itself as a shell would take it back.
#pragma once

#include <string>

namespace fabcheck {

// A number given on the command line (CLI11 parses "nan" and "inf" as numbers): throws ConfigError
// "FLAG VALUE: expected a finite number from MIN to MAX" unless it is finite and in range.
void check_cli_number(const std::string& flag, double value, double min, double max,
                      bool min_exclusive = false);

// The command line as one string, shell-quoted where needed.
std::string joined_command_line(int argc, char** argv);

}  // namespace fabcheck
