// Issue 23 (10): `fabcheck clean` reads each owner record with the bounded regular-file reader: a
// FIFO planted by any user (on main: clean hung forever, even with --dry-run), a link to /dev/zero
// and a 2 GB sparse file (on main: out of memory) are no record, found at once.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "storage/scratch_owner.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(CleanRecords, AFifoALinkToDevZeroAndAHugeSparseFileAreNoRecordAndNeverHang) {
  TempDir storage;
  const fs::path base = storage.path();
  for (const char* name : {".fabcheck-fifo", ".fabcheck-zero", ".fabcheck-sparse", ".fabcheck-ok"})
    fs::create_directory(base / name);
  ASSERT_EQ(::mkfifo((base / ".fabcheck-fifo" / kScratchOwnerFile).c_str(), 0666), 0);
  fs::create_symlink("/dev/zero", base / ".fabcheck-zero" / kScratchOwnerFile);
  {
    const int fd = ::open((base / ".fabcheck-sparse" / kScratchOwnerFile).c_str(),
                          O_CREAT | O_WRONLY, 0600);
    ASSERT_EQ(::ftruncate(fd, 2LL << 30), 0);
    ::close(fd);
  }
  testing::write_whole_file(base / ".fabcheck-ok" / kScratchOwnerFile,
                            "host=elsewhere\npid=12\nstart=1\nboot=x\n");

  // In a child with a limit of 10 s and 1 GiB of address space, so a hang or a 2 GB read fails the test instead
  // of stopping it.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    const struct rlimit memory {1ull << 30, 1ull << 30};
    ::setrlimit(RLIMIT_AS, &memory);
    const auto found = find_left_scratch(base);
    std::string summary;
    for (const LeftScratch& left : found)
      summary += left.dir.filename().string() + (left.owner ? "=record\n" : "=none\n");
    (void)!::write(pipe_fds[1], summary.data(), summary.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      ::close(pipe_fds[0]);
      FAIL() << "find_left_scratch did not return within 10 s (blocked on the FIFO?)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  char buffer[512] = {};
  const ssize_t got = ::read(pipe_fds[0], buffer, sizeof(buffer) - 1);
  ::close(pipe_fds[0]);
  ASSERT_GT(got, 0);
  EXPECT_EQ(std::string(buffer),
            ".fabcheck-fifo=none\n.fabcheck-ok=record\n.fabcheck-sparse=none\n.fabcheck-zero=none\n");
}

}  // namespace
}  // namespace fabcheck
