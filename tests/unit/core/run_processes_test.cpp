// This run's pids per host (defect 8): a rank's pid under every pid namespace /proc shows, and
// every rank of the same host gathered, so another rank's GPU memory is never counted as foreign.
#include "bench/core/run_processes.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/doubles/thread_world.hpp"

namespace fabcheck {
namespace {

TEST(RunProcesses, EveryNamespacesPidOfThisProcessIsOwn) {
  const auto proc =
      std::filesystem::temp_directory_path() / ("fabcheck-proc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(proc / "self");
  std::ofstream(proc / "self" / "status") << "Name:\tfabcheck\nPid:\t7\nNSpid:\t81234\t7\n";
  const auto pids = own_pid_aliases(proc);
  std::filesystem::remove_all(proc);
  EXPECT_EQ(pids.front(), static_cast<unsigned>(::getpid()));
  EXPECT_NE(std::find(pids.begin(), pids.end(), 81234u), pids.end());
  EXPECT_NE(std::find(pids.begin(), pids.end(), 7u), pids.end());
}

TEST(RunProcesses, TheRanksOfThisHostAreGatheredAndNoOthers) {
  std::vector<std::set<unsigned>> seen(3);
  const auto errors = testing::run_ranks({"node-a", "node-a", "node-b"}, [&](World& world) {
    const unsigned mine = 100 + static_cast<unsigned>(world.rank());
    seen[static_cast<std::size_t>(world.rank())] = run_pids_on_this_host(world, {mine, mine + 10});
  });
  EXPECT_EQ(errors, (std::vector<std::string>{"", "", ""}));
  EXPECT_EQ(seen[0], (std::set<unsigned>{100, 101, 110, 111}));
  EXPECT_EQ(seen[1], seen[0]);
  EXPECT_EQ(seen[2], (std::set<unsigned>{102, 112}));
}

TEST(RunProcesses, APidOfAnotherNamespaceIsNotVisibleHere) {
  EXPECT_TRUE(pid_visible_here(static_cast<unsigned>(::getpid())));
  EXPECT_FALSE(pid_visible_here(4194304 + 17));  // above the kernel's pid_max limit
}

}  // namespace
}  // namespace fabcheck
