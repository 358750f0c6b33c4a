// Reading NCCL logs with bounded memory: only regular files (a FIFO, a directory or a device is
// refused at once, naming what it is), lines across read buffers and lines too long, records seen
// again counted but not kept, and records past the limits counted but not kept.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bench/sys/config_error.hpp"
#include "fabric/nccl_log.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class NcclLogReading : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "fabcheck-nccl-log-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string refusal(const fs::path& path) {
    try {
      read_nccl_logs({path.string()});
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "accepted";
  }

  static std::string channel_line(long pid, int channel) {
    return "node-a:" + std::to_string(pid) + ":7 [0] NCCL INFO Channel " +
           (channel < 10 ? "0" : "") + std::to_string(channel) +
           "/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA\n";
  }

  fs::path dir_;
};

TEST_F(NcclLogReading, OnlyRegularFilesAreRead) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  fs::create_directory(dir_ / "folder");
  fs::create_symlink(dir_ / "nothing", dir_ / "dangling");
  EXPECT_THAT(refusal(dir_ / "fifo"), HasSubstr("is a named pipe (FIFO), not an NCCL log file"));
  EXPECT_THAT(refusal(dir_ / "folder"), HasSubstr("is a directory, not an NCCL log file"));
  EXPECT_THAT(refusal("/dev/zero"), HasSubstr("is a character device"));
  EXPECT_THAT(refusal(dir_ / "dangling"), HasSubstr("a symbolic link to"));
  EXPECT_THAT(refusal(dir_ / "missing"), HasSubstr("does not exist"));
}

TEST_F(NcclLogReading, LinesAcrossReadBuffersAndLinesTooLong) {
  const fs::path file = dir_ / "job.log";
  {
    std::ofstream out(file);
    // Filler that ends 10 bytes before the 1 MiB read buffer does, so the next line spans it.
    const std::string filler(99, 'f');
    std::size_t written = 0;
    while (written + 100 <= (1u << 20) - 10) {
      out << filler << '\n';
      written += 100;
    }
    out << std::string((1u << 20) - 10 - written, 'g') << '\n';
    out << std::string(10, ' ') << channel_line(1, 0);      // spans the boundary (leading spaces)
    out << std::string(200000, 'x') << channel_line(1, 1);  // one line of 200 KB: cut, not read
    out << channel_line(1, 2);
  }
  const NcclLog log = read_nccl_logs({file.string()});
  EXPECT_EQ(log.long_lines, 1u);
  ASSERT_EQ(log.connections.size(), 2u);
  EXPECT_EQ(log.connections[0].channel, 0);
  EXPECT_EQ(log.connections[1].channel, 2);
  EXPECT_EQ(log.connections[1].source.line, log.lines);  // line numbers carried across buffers
  EXPECT_TRUE(log.connections[0].gdr);
}

TEST_F(NcclLogReading, RecordsSeenAgainAreCountedNotKept) {
  const fs::path file = dir_ / "job.log";
  std::ofstream(file) << channel_line(1, 0) << channel_line(1, 1)
                      << "node-a:1:7 [0] NCCL INFO Using network IB\n";
  const NcclLog twice = read_nccl_logs({file.string(), file.string()});
  EXPECT_EQ(twice.connections.size(), 2u);
  EXPECT_EQ(twice.networks.size(), 1u);
  EXPECT_EQ(twice.repeated, 3u);
  EXPECT_EQ(twice.lines, 6u);
}

TEST_F(NcclLogReading, RecordsPastTheLimitAreCountedNotKept) {
  const fs::path file = dir_ / "many.log";
  {
    std::ofstream out(file);
    for (long pid = 1; pid <= static_cast<long>(NcclLog::kMaxConnections) + 10; ++pid)
      out << channel_line(pid, 0);
  }
  const NcclLog log = read_nccl_logs({file.string()});
  EXPECT_EQ(log.connections.size(), NcclLog::kMaxConnections);
  EXPECT_EQ(log.not_kept, 10u);
  EXPECT_EQ(log.lines, NcclLog::kMaxConnections + 10);
}

}  // namespace
}  // namespace fabcheck
