// Issue 23 (1): on a storage path another user can write (no sticky bit), that user swaps root's
// .fabcheck-* scratch folder for a folder of links to files of their choice. The probes write
// through the folder's descriptor, so the files named never change (on main, written through in
// 1 of 1-4 runs).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"
#include "storage/register.hpp"
#include "storage/scratch_dir.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Counts what a probe measured: a probe whose clean-up is refused (its folder was swapped) still
// ran its pattern through the folder it made.
class CountingSink final : public MeasurementSink {
 public:
  void emit(Measurement) override { ++emitted; }
  int emitted = 0;
};

const char* const kVictimText = "the victim's own bytes\n";

TEST(ScratchAttack, AFileIsReopenedInTheFolderMadeAfterTheFolderIsSwappedForLinks) {
  TempDir storage;
  TempDir elsewhere;
  const fs::path victim = elsewhere.path() / "victim";
  testing::write_whole_file(victim, kVictimText);
  auto scratch = ScratchDir::create(storage.path(), ".fabcheck-run");
  const fs::path file = scratch->create_file("r0-seq.dat");
  fs::rename(storage.path() / ".fabcheck-run", storage.path() / "aside");
  fs::create_directory(storage.path() / ".fabcheck-run");
  fs::create_symlink(victim, storage.path() / ".fabcheck-run" / "r0-seq.dat");

  {
    const UniqueFd fd = scratch->open_file(file, O_WRONLY);
    ASSERT_EQ(write_all(fd.get(), "benchmark data\n"), 0);
  }
  EXPECT_EQ(testing::read_whole_file(victim), kVictimText);
  EXPECT_EQ(testing::read_whole_file(storage.path() / "aside" / "r0-seq.dat"), "benchmark data\n");
  scratch.reset();
  EXPECT_FALSE(fs::exists(storage.path() / "aside" / "r0-seq.dat"));  // its own file removed
  EXPECT_TRUE(fs::is_symlink(storage.path() / ".fabcheck-run" / "r0-seq.dat"));  // theirs left
}

// Another user (uid 65534 when the test runs as root) swaps every new .fabcheck-* folder for a
// folder of links to a root-owned file as fast as it can, while the storage probes run again and
// again on the storage path.
TEST(ScratchAttack, AnotherUserSwappingTheScratchFolderNeverRedirectsAProbesWrites) {
  TempDir storage;
  TempDir elsewhere;
  ASSERT_EQ(::chmod(storage.path().c_str(), 0777), 0);  // anyone may write it, no sticky bit
  const fs::path victim = elsewhere.path() / "victim";
  testing::write_whole_file(victim, kVictimText);

  auto* swaps = static_cast<std::atomic<long>*>(
      ::mmap(nullptr, sizeof(std::atomic<long>), PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(swaps, MAP_FAILED);
  new (swaps) std::atomic<long>(0);
  const pid_t attacker = ::fork();
  ASSERT_GE(attacker, 0);
  if (attacker == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(1);
    // The names the probes create (the loader's small files are in small-0/).
    std::vector<std::string> names = {"r0-seq.dat", "r0-fsync.dat", ".fabcheck-owner"};
    for (int i = 0; i < 4; ++i) names.push_back("shard-" + std::to_string(i) + ".bin");
    for (int i = 0; i < 64; ++i) names.push_back("small-0/" + std::to_string(i) + ".bin");
    std::set<std::string> mine;
    unsigned seed = 1;
    for (long k = 0;; ++k) {
      std::error_code error;
      for (fs::directory_iterator it(storage.path(), error), end; !error && it != end;
           it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(".fabcheck-", 0) != 0 || mine.count(name) != 0) continue;
        // A moment into the probe (0-20 ms): some swaps land before its files are made, some
        // between making a file and writing it.
        seed = seed * 1103515245u + 12345u;
        ::usleep((seed >> 8) % 20000);
        const fs::path aside = storage.path() / ("aside-" + std::to_string(k));
        if (::rename(it->path().c_str(), aside.c_str()) != 0) continue;
        if (::mkdir(it->path().c_str(), 0777) != 0) continue;
        ::mkdir((it->path() / "small-0").c_str(), 0777);
        mine.insert(name);
        for (const std::string& file : names) {
          if (::symlink(victim.c_str(), (it->path() / file).c_str()) != 0) break;
        }
        ++*swaps;
        break;
      }
    }
  }

  Registry registry;
  register_storage_probes(registry);
  RunOptions options;
  options.storage_paths = {storage.path().string()};
  options.extra = {{"storage.file_size", "1M"},    {"storage.duration_s", "0.05"},
                   {"storage.block_size", "64K"},  {"storage.loader_bytes", "4M"},
                   {"storage.loader_sample", "64K"}, {"storage.loader_shard", "1M"},
                   {"storage.loader_workers", "1"}};
  auto world = make_single_world();
  int runs = 0;
  int measured = 0;  // probes that wrote and measured, whether or not their clean-up was refused
  for (int round = 0; round < 8; ++round) {
    for (const char* id : {"storage.seq_write", "storage.fsync_lat", "storage.loader"}) {
      Probe* probe = registry.find(id);
      ASSERT_NE(probe, nullptr) << id;
      RunContext context{*world, options, elsewhere.path() / "run"};
      CountingSink sink;
      try {
        probe->run(context, sink);
      } catch (const std::exception&) {
        // A refused step (the swapped folder is left, not removed) is not the attack winning;
        // what matters is the victim.
      }
      if (sink.emitted > 0) ++measured;
      ++runs;
    }
  }
  ::kill(attacker, SIGKILL);
  ::waitpid(attacker, nullptr, 0);
  const long swapped = swaps->load();
  ::munmap(swaps, sizeof(std::atomic<long>));
  EXPECT_EQ(testing::read_whole_file(victim), kVictimText)
      << "a probe wrote through the attacker's link";
  EXPECT_GT(measured, 0) << "no probe measured anything: the writes were never tried";
  EXPECT_GE(swapped, runs / 2) << "the attacker swapped too few folders to have tried";
  // What the attacker left (their folders) is theirs; the test's TempDir removes it.
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(storage.path(), ignored)) {
    fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
  }
}

}  // namespace
}  // namespace fabcheck
