// Scratch names and ownership: every run's name is its own; a folder that cannot be made on one
// rank ends every rank at once, naming that rank; `fabcheck clean` removes only scratch whose run
// is gone, on this host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <map>

#include "storage/shared_scratch.hpp"
#include "storage/scratch_owner.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/doubles/thread_world.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::write_whole_file;

TEST(ScratchNames, EveryRunHasItsOwnAndEveryRankAgrees) {
  std::vector<std::string> ids(2);
  const auto errors = testing::run_ranks({"node-a", "node-b"}, [&](World& world) {
    ids[static_cast<std::size_t>(world.rank())] = shared_run_id(world);
  });
  EXPECT_EQ(errors, std::vector<std::string>(2));
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_THAT(ids[0], HasSubstr("-node-a-" + std::to_string(::getpid()) + "-"));
  std::string again;
  testing::run_ranks({"node-a"}, [&](World& world) { again = shared_run_id(world); });
  EXPECT_NE(again, ids[0]);  // the random part, within the same second and process
}

// Rank 0 cannot make the shared folder (a folder of that name is already there): both ranks stop
// at once with the same error naming rank 0; none waits in a collective rank 0 skipped.
TEST(ScratchNames, AFolderTakenOnRank0EndsEveryRankNamingRank0) {
  TempDir target;
  fs::create_directory(target.path() / ".fabcheck-taken");
  const auto errors = testing::run_ranks({"node-a", "node-b"}, [&](World& world) {
    SharedScratch scratch = open_shared_scratch(world, target.path(), ".fabcheck-taken");
  });
  for (const std::string& error : errors) {
    EXPECT_THAT(error, HasSubstr("rank 0 (node-a)"));
    EXPECT_THAT(error, HasSubstr("File exists"));
  }
  EXPECT_TRUE(fs::is_empty(target.path() / ".fabcheck-taken"));  // nothing written into it
}

TEST(ScratchOwner, TheRecordReadsBack) {
  const ScratchOwner me = ScratchOwner::of_this_process();
  EXPECT_EQ(me.pid, ::getpid());
  EXPECT_FALSE(me.process_start.empty());
  EXPECT_FALSE(me.boot_id.empty());
  const auto back = ScratchOwner::from_text(me.to_text());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->host, me.host);
  EXPECT_EQ(back->pid, me.pid);
  EXPECT_EQ(back->process_start, me.process_start);
  EXPECT_FALSE(ScratchOwner::from_text("garbage").has_value());
  EXPECT_FALSE(ScratchOwner::from_text("host=a\npid=x\n").has_value());
}

// A folder made by a process that has exited, one by this (running) process, one from another
// host, one without a record, and a link named like scratch: only the first is removed.
TEST(ScratchOwner, CleanRemovesOnlyScratchWhoseRunIsGone) {
  TempDir target;
  TempDir elsewhere;
  write_whole_file(elsewhere.path() / "keep", "not scratch");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto scratch = ScratchDir::create(target.path(), ".fabcheck-gone");
      scratch->create_file("data", 4096);
      ::_exit(0);  // dies with its scratch in place, as a killed rank would
    } catch (...) {
      ::_exit(1);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  auto mine = ScratchDir::create(target.path(), ".fabcheck-running");
  fs::create_directory(target.path() / ".fabcheck-remote");
  ScratchOwner remote = ScratchOwner::of_this_process();
  remote.host = "another-host";
  write_whole_file(target.path() / ".fabcheck-remote" / kScratchOwnerFile, remote.to_text());
  fs::create_directory(target.path() / ".fabcheck-unknown");
  fs::create_directory_symlink(elsewhere.path(), target.path() / ".fabcheck-link");

  const auto found = find_left_scratch(target.path());
  ASSERT_EQ(found.size(), 4u);  // the link is not a folder of ours
  std::map<std::string, LeftScratch::State> states;
  for (const auto& left : found) states[left.dir.filename().string()] = left.state;
  EXPECT_EQ(states[".fabcheck-gone"], LeftScratch::State::gone);
  EXPECT_EQ(states[".fabcheck-running"], LeftScratch::State::running);
  EXPECT_EQ(states[".fabcheck-remote"], LeftScratch::State::other_host);
  EXPECT_EQ(states[".fabcheck-unknown"], LeftScratch::State::unknown);
  EXPECT_THAT(found[0].describe(), HasSubstr("which is gone"));
  EXPECT_EQ(found[0].files, 2u);  // the record and the data file

  for (const auto& left : found) {
    std::string problem;
    EXPECT_EQ(remove_left_scratch(left, problem), left.state == LeftScratch::State::gone)
        << left.describe();
  }
  EXPECT_FALSE(fs::exists(target.path() / ".fabcheck-gone"));
  EXPECT_TRUE(fs::exists(target.path() / ".fabcheck-running"));
  EXPECT_TRUE(fs::exists(target.path() / ".fabcheck-remote"));
  EXPECT_TRUE(fs::exists(elsewhere.path() / "keep"));
}

}  // namespace
}  // namespace fabcheck
