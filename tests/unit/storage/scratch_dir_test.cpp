// ScratchDir: exclusive creation, removal of exactly what it created, nothing else touched.
#include "storage/scratch_dir.hpp"

#include <gtest/gtest.h>

#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(ScratchDir, CreatesAndRemovesItsDirectoryAndFiles) {
  TempDir parent;
  fs::path dir;
  {
    auto scratch = ScratchDir::create(parent.path(), scratch_dir_name("run1"));
    dir = scratch->path();
    EXPECT_EQ(dir.filename(), ".fabcheck-run1");
    EXPECT_TRUE(fs::is_directory(dir));
    scratch->create_subdir("sub");
    const auto file = scratch->create_file("sub/a", 65536);
    EXPECT_TRUE(fs::exists(file));
    EXPECT_EQ(fs::file_size(file), 65536u);
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(fs::is_empty(parent.path()));
}

TEST(ScratchDir, RefusesAnExistingDirectoryAndLeavesItAlone) {
  TempDir parent;
  fs::create_directory(parent.path() / ".fabcheck-taken");
  testing::write_whole_file(parent.path() / ".fabcheck-taken" / "theirs", "precious");
  EXPECT_THROW(ScratchDir::create(parent.path(), ".fabcheck-taken"), std::system_error);
  EXPECT_EQ(testing::read_whole_file(parent.path() / ".fabcheck-taken" / "theirs"), "precious");
}

TEST(ScratchDir, NeverOverwritesAFileItDidNotCreate) {
  TempDir parent;
  auto scratch = ScratchDir::create(parent.path(), ".fabcheck-x");
  testing::write_whole_file(scratch->path() / "foreign", "not ours");
  EXPECT_THROW(scratch->create_file("foreign"), std::system_error);
  EXPECT_THROW(scratch->remove_file(scratch->path() / "foreign"), std::logic_error);
  EXPECT_FALSE(scratch->remove_all());  // the directory is not empty: it stays, with the file
  EXPECT_EQ(testing::read_whole_file(parent.path() / ".fabcheck-x" / "foreign"), "not ours");
}

TEST(ScratchDir, JoinedDirectoryKeepsTheDirectoryButRemovesOwnFiles) {
  TempDir parent;
  auto owner = ScratchDir::create(parent.path(), ".fabcheck-shared");
  {
    auto joined = ScratchDir::join(owner->path());
    EXPECT_FALSE(joined->owns_directory());
    joined->create_file("r1");
  }
  // Only the owner's record of who made the folder is left.
  const std::vector<fs::path> left(fs::directory_iterator(owner->path()), {});
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].filename(), ".fabcheck-owner");
  EXPECT_TRUE(owner->remove_all());
  EXPECT_FALSE(fs::exists(parent.path() / ".fabcheck-shared"));
  EXPECT_THROW(ScratchDir::join(parent.path() / ".fabcheck-shared"), std::system_error);
}

TEST(ScratchDir, RemoveFileForgetsItAndNothingIsCreatedAfterCleanup) {
  TempDir parent;
  auto scratch = ScratchDir::create(parent.path(), ".fabcheck-y");
  const auto file = scratch->create_file("f");
  scratch->remove_file(file);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_TRUE(scratch->remove_all());
  EXPECT_TRUE(scratch->remove_all());  // idempotent
  EXPECT_THROW(scratch->create_file("late"), std::system_error);
  EXPECT_FALSE(fs::exists(parent.path() / ".fabcheck-y"));
}

}  // namespace
}  // namespace fabcheck
