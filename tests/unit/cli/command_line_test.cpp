// summary.json's command_line: every argument a POSIX shell gives back unchanged and nothing more
// (pasting the recorded line runs the same argument vector: no `;`, backtick, `|`, `&`, `$(...)`
// runs anything), checked against /bin/sh on fixed attacks and random argument vectors.
#include "bench/cli/command_line.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace fabcheck {
namespace {

std::string recorded(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return joined_command_line(static_cast<int>(argv.size()), argv.data());
}

// What sh makes of `line` as printf's arguments: one entry per word, each ended by a NUL byte.
std::vector<std::string> words_sh_gives(const std::string& line) {
  const std::string command = "printf '%s\\000' " + line;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {"<popen failed>"};
  std::string out;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, got);
  ::pclose(pipe);
  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\0') {
      words.push_back(out.substr(start, i - start));
      start = i + 1;
    }
  }
  return words;
}

TEST(CommandLine, ShellCharactersAreQuoted) {
  for (const std::string attack :
       {"a;id", "`id`", "a|id", "a&id",  "$(id)", "a>b",  "a<b", "(x)",  "*",    "?",        "[a]",
        "~",    "#x",   "!x",   "{a,b}", "a\nb",  "a\\b", "",    "it's", "x\"y", "tab\there"}) {
    const std::string line = recorded({"fabcheck", "run", attack});
    EXPECT_EQ(words_sh_gives(line), (std::vector<std::string>{"fabcheck", "run", attack})) << line;
  }
  EXPECT_EQ(recorded({"fabcheck", "--out=/runs/a-1,b:2@x%y+z"}),
            "fabcheck --out=/runs/a-1,b:2@x%y+z");  // the safe set stays bare
  EXPECT_EQ(recorded({"fabcheck", "a;id"}), "fabcheck 'a;id'");
  EXPECT_EQ(recorded({"fabcheck", "it's"}), "fabcheck 'it'\\''s'");
  EXPECT_EQ(recorded({"A=B", "x"}), "'A=B' x");  // a command word, not an assignment
}

// Property: for 300 random argument vectors of random bytes (NUL aside: argv cannot hold it),
// sh reads the recorded line back as the same vector.
TEST(CommandLine, ShGivesBackRandomArgumentVectors) {
  std::mt19937 random(18);
  const std::string shell_bytes = ";&|`$(){}[]<>*?~#!'\"\\ \t\n=,%@";
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> args;
    const int count = 1 + static_cast<int>(random() % 6);
    for (int a = 0; a < count; ++a) {
      std::string arg;
      const int length = static_cast<int>(random() % 12);
      for (int i = 0; i < length; ++i) {
        arg += random() % 2 ? shell_bytes[random() % shell_bytes.size()]
                            : static_cast<char>(1 + random() % 255);
      }
      args.push_back(arg);
    }
    const std::string line = recorded(args);
    ASSERT_EQ(words_sh_gives(line), args) << "round " << round << ": " << line;
  }
}

}  // namespace
}  // namespace fabcheck
