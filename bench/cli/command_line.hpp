// The command line as a shell would take it back (summary.json's command_line).
#pragma once

#include <string>

namespace fabcheck {

// One argument as a POSIX shell word that gives it back unchanged: bare when made only of
// [A-Za-z0-9_@%+=:,./-] (and not empty), otherwise in single quotes (a quote inside as '\'').
std::string shell_quoted(const std::string& arg);

// The command line as one string, each argument shell_quoted(): pasted into sh it runs the same
// argument vector, nothing else.
std::string joined_command_line(int argc, char** argv);

}  // namespace fabcheck
