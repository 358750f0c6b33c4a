// Quoting the command line as a POSIX shell takes it back.
#include "bench/cli/command_line.hpp"

#include <string_view>

namespace fabcheck {

namespace {

// Inside single quotes every byte is literal but the quote itself: close, \', reopen.
std::string single_quoted(const std::string& arg) {
  std::string quoted = "'";
  for (const char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string shell_quoted(const std::string& arg) {
  // Bare only when every byte is one no POSIX shell gives a meaning to, anywhere in a word.
  constexpr std::string_view kSafe =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
  if (!arg.empty() && arg.find_first_not_of(kSafe) == std::string::npos) return arg;
  return single_quoted(arg);
}

std::string joined_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    // The command word "A=B" would be an assignment to the shell: quoted, it is the command.
    const bool assignment = i == 0 && arg.find('=') != std::string::npos;
    line += (i ? " " : "") + (assignment ? single_quoted(arg) : shell_quoted(arg));
  }
  return line;
}

}  // namespace fabcheck
