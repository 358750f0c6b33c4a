// --storage-path checks: missing, not a directory, not writable, not enough space.
#include "storage/path_validation.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string error_of(const std::vector<std::string>& paths, std::uint64_t bytes) {
  try {
    validate_storage_paths(paths, bytes);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(PathValidation, WritableDirectoryWithSpacePasses) {
  TempDir dir;
  EXPECT_EQ(error_of({dir.path().string()}, 4096), "");
}

TEST(PathValidation, MissingPath) {
  TempDir dir;
  const std::string missing = (dir.path() / "nope").string();
  EXPECT_EQ(error_of({missing}, 0), "--storage-path: \"" + missing + "\" does not exist");
}

TEST(PathValidation, FileIsNotADirectory) {
  TempDir dir;
  const std::string file = (dir.path() / "plain").string();
  testing::write_whole_file(file, "x");
  EXPECT_EQ(error_of({dir.path().string(), file}, 0),
            "--storage-path: \"" + file + "\" is a regular file, not a directory");
}

TEST(PathValidation, NotEnoughSpaceNamesBothFigures) {
  TempDir dir;
  const std::string message = error_of({dir.path().string()}, 1ull << 62);
  EXPECT_NE(message.find("\"" + dir.path().string() + "\" has "), std::string::npos) << message;
  EXPECT_NE(message.find("fewer than the 4EiB"), std::string::npos) << message;
}

TEST(PathValidation, DirectoryWithoutWritePermission) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root may write anywhere; the read-only mount case is "
                    "covered by tests/mpi/storage";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string message = error_of({dir.path().string()}, 0);
  EXPECT_NE(message.find("is not writable"), std::string::npos) << message;
}

}  // namespace
}  // namespace fabcheck
