// Paths given as input are named for what they are when they are not what was asked for, and only
// regular files are opened (a FIFO is refused at once instead of blocking).
#include "bench/sys/input_path.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(InputPath, EachKindIsNamed) {
  std::string pattern = (fs::temp_directory_path() / "fabcheck-input-path-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  std::ofstream(dir / "file") << "x";
  fs::create_directory(dir / "folder");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_symlink(dir / "loop-b", dir / "loop-a");
  fs::create_symlink(dir / "loop-a", dir / "loop-b");
  fs::create_symlink(dir / "nothing", dir / "dangling");

  EXPECT_EQ(describe_path(dir / "file"), "a regular file");
  EXPECT_EQ(describe_path(dir / "folder"), "a directory");
  EXPECT_EQ(describe_path(dir / "fifo"), "a named pipe (FIFO)");
  EXPECT_EQ(describe_path("/dev/null"), "a character device");
  EXPECT_EQ(describe_path(dir / "loop-a"), "a symbolic link that loops");
  EXPECT_EQ(describe_path(dir / "dangling"),
            "a symbolic link to " + (dir / "nothing").string() + ", which does not exist");
  EXPECT_EQ(describe_path(dir / "missing"), "missing");
  EXPECT_EQ(why_not_a_regular_file(dir / "file"), "");
  EXPECT_EQ(why_not_a_regular_file(dir / "missing"), "does not exist");
  EXPECT_EQ(why_not_a_regular_file(dir / "folder"), "is a directory");

  const int fd = open_regular_file(dir / "file", "a log");
  EXPECT_GE(fd, 0);
  ::close(fd);
  for (const char* name : {"folder", "fifo", "loop-a", "dangling"}) {
    try {
      open_regular_file(dir / name, "a log");
      FAIL() << name << " opened";
    } catch (const ConfigError& error) {
      EXPECT_THAT(error.what(), HasSubstr((dir / name).string() + ": is a"));
      EXPECT_THAT(error.what(), HasSubstr(", not a log"));
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fabcheck
