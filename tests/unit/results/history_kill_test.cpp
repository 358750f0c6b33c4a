// Issue 23 (8): the fleet history survives a SIGKILL at any write of an append. A child appends a
// night and is killed just before its first, second, ... HDF5 write (the test's pwrite counts
// them), until one append finishes; after each kill the history reads back with every earlier run (on main, appended in place, kills at HDF5 writes
// 6-10 of 14 left "reading /strings failed" and every earlier night lost).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "results/history.hpp"
#include "results/run_reader.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/synthetic/synthetic_fleet.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// The test's own pwrite (HDF5's sec2 driver writes with it): passes every write on, and once armed
// in a child, kills the process with SIGKILL just before its N-th write.
long kill_at_write = 0;
long writes_seen = 0;

}  // namespace
}  // namespace fabcheck

extern "C" ssize_t pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  using Real = ssize_t (*)(int, const void*, size_t, off_t);
  static const Real real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "pwrite"));
  if (fabcheck::kill_at_write > 0 && ++fabcheck::writes_seen >= fabcheck::kill_at_write) {
    ::raise(SIGKILL);
  }
  return real(fd, buffer, count, offset);
}

namespace fabcheck {
namespace {

// Appends in a child killed just before its `write`-th HDF5 write; true when it finished first.
bool append_killed_at(const fs::path& history, const FleetStore& store, long write) {
  const pid_t child = ::fork();
  if (child == 0) {
    kill_at_write = write;
    try {
      append_history(history, store);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(HistoryKill, AKillAtEveryHdf5WriteOfAnAppendLeavesEveryEarlierRunReadable) {
  if (!history_available()) GTEST_SKIP() << "built without HDF5";
  TempDir dir;
  synthetic::FleetSpec spec;
  spec.nodes = 16;
  spec.faults = false;
  synthetic::write_fleet(dir.path() / "night", spec, 1);
  FleetStore store;
  for (const fs::path& run : find_run_dirs({(dir.path() / "night").string()})) read_run_dir(run, store);
  ASSERT_GT(store.rows.size(), 1000u);

  const fs::path history = dir.path() / "fleet.h5";
  append_history(history, store);
  const std::size_t runs = read_history(history, nullptr, 0).runs.size();
  ASSERT_EQ(runs, store.runs.size());
  const fs::path pristine = dir.path() / "pristine.h5";
  fs::copy_file(history, pristine);

  long killed = 0;
  bool finished = false;
  for (long write = 1; write <= 2000 && !finished; ++write) {
    fs::copy_file(pristine, history, fs::copy_options::overwrite_existing);
    finished = append_killed_at(history, store, write);
    killed += finished ? 0 : 1;
    std::size_t now = 0;
    try {
      now = read_history(history, nullptr, 0).runs.size();
    } catch (const std::exception& error) {
      FAIL() << "killed at HDF5 write " << write << ": the history no longer reads: " << error.what();
    }
    EXPECT_TRUE(now == runs || now == 2 * runs) << "killed at write " << write << ": " << now;
    if (!finished) {
      EXPECT_EQ(now, runs) << "killed at write " << write << " yet appended";
    }
    // What a killed append leaves is its hidden temporary file, never a changed history.
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      if (entry.path().filename().string().rfind(".fleet.h5.tmp-", 0) == 0) fs::remove(entry.path());
    }
  }
  EXPECT_TRUE(finished) << "the append never finished";
  EXPECT_GE(killed, 5) << "an append of 16 runs makes more HDF5 writes than that";
  // A later append onto the history that survived adds its night.
  fs::copy_file(pristine, history, fs::copy_options::overwrite_existing);
  append_history(history, store);
  EXPECT_EQ(read_history(history, nullptr, 0).runs.size(), 2 * runs);
}

}  // namespace
}  // namespace fabcheck
