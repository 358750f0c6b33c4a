// Engines and the timed loop: the null engine drives the harness; psync and io_uring move real
// bytes through a tmpfs file, and a corrupted byte on the file is caught at its offset.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"
#include "storage/data_pattern.hpp"
#include "storage/io_engine.hpp"
#include "storage/io_loop.hpp"
#include "storage/null_engine.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

using testing::TempDir;

TEST(NullEngine, LoopIssuesExactlyTheBytesAskedFor) {
  NullEngine engine(32);
  const int file = engine.adopt(UniqueFd());
  IoLoopConfig config;
  config.op = IoOp::write;
  config.block_size = 4096;
  config.queue_depth = 32;
  config.region_bytes = 1 << 20;
  config.max_bytes = 3 << 20;  // three passes over the region
  const IoLoopResult result = run_io_loop(engine, file, config);
  EXPECT_EQ(result.ops, 3u * 256u);
  EXPECT_EQ(result.bytes, 3u << 20);
  EXPECT_EQ(engine.submitted(), 768u);
  EXPECT_EQ(result.latency_ns.count(), 768u);
  EXPECT_EQ(result.wrong_bytes, 0u);
  engine.close(file);
  EXPECT_EQ(engine.open_files(), 0u);
}

TEST(NullEngine, PartialLastBlockKeepsInsideTheRegion) {
  NullEngine engine(4);
  const int file = engine.adopt(UniqueFd());
  IoLoopConfig config;
  config.block_size = 4096;
  config.queue_depth = 4;
  config.region_bytes = 10 * 1024;  // 4K + 4K + 2K
  config.max_bytes = 10 * 1024;
  const IoLoopResult result = run_io_loop(engine, file, config);
  EXPECT_EQ(result.ops, 3u);
  EXPECT_EQ(result.bytes, 10u * 1024);
}

TEST(NullEngine, DurationBoundStopsTheLoop) {
  NullEngine engine(8);
  const int file = engine.adopt(UniqueFd());
  IoLoopConfig config;
  config.random = true;
  config.block_size = 4096;
  config.queue_depth = 8;
  config.region_bytes = 1 << 20;
  config.duration_s = 0.05;
  const IoLoopResult result = run_io_loop(engine, file, config);
  EXPECT_GT(result.ops, 100u);
  EXPECT_GE(result.seconds(), 0.05);
  EXPECT_LT(result.seconds(), 1.0);
}

TEST(NullEngine, RequestOnUnopenedFileThrows) {
  NullEngine engine(1);
  const IoRequest request{IoOp::read, 5, nullptr, 0, 0, 0};
  EXPECT_THROW(engine.submit({&request, 1}), std::invalid_argument);
}

TEST(IoEngineFactory, UnknownEngineIsAConfigErrorListingTheKnownOnes) {
  try {
    make_io_engine("libaio", 1);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("\"libaio\""), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("psync"), std::string::npos) << error.what();
  }
}

class RealEngine : public ::testing::TestWithParam<std::string> {};

// Writes a pattern file through the engine, reads it back verified, then flips one byte on the
// file behind the engine's back and checks the read-back names that offset.
TEST_P(RealEngine, WritesReadsAndCatchesACorruptedByte) {
  TempDir dir(testing::tmpfs_parent());
  const auto path = dir.path() / "data";
  auto engine = make_io_engine(GetParam(), 8);
  const int file = engine->adopt(UniqueFd(::open(path.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)));

  IoLoopConfig write;
  write.op = IoOp::write;
  write.block_size = 64 * 1024;
  write.queue_depth = 8;
  write.region_bytes = 1 << 20;
  write.max_bytes = 1 << 20;
  write.pattern_rank = 4;
  write.file_label = path.string();
  EXPECT_EQ(run_io_loop(*engine, file, write).bytes, 1u << 20);
  EXPECT_EQ(std::filesystem::file_size(path), 1u << 20);

  IoLoopConfig read = write;
  read.op = IoOp::read;
  IoLoopResult clean = run_io_loop(*engine, file, read);
  EXPECT_EQ(clean.bytes, 1u << 20);
  EXPECT_EQ(clean.wrong_bytes, 0u);

  const int fd = ::open(path.c_str(), O_WRONLY);
  const char bad = 0x5a ^ static_cast<char>(pattern_word(4, 777000) & 0xff);
  ASSERT_EQ(::pwrite(fd, &bad, 1, 777000), 1);
  ::close(fd);
  IoLoopResult dirty = run_io_loop(*engine, file, read);
  ASSERT_TRUE(dirty.first_bad_offset.has_value());
  EXPECT_EQ(*dirty.first_bad_offset, 777000u);
  EXPECT_EQ(dirty.wrong_bytes, 1u);

  read.pattern_rank = 5;  // another rank's data is not this file's
  EXPECT_GT(run_io_loop(*engine, file, read).wrong_bytes, 0u);
  engine->close(file);
}

TEST_P(RealEngine, FsyncCompletesAndReadPastEndIsShort) {
  TempDir dir(testing::tmpfs_parent());
  const auto path = dir.path() / "small";
  auto engine = make_io_engine(GetParam(), 2);
  const int file = engine->adopt(UniqueFd(::open(path.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)));
  const IoRequest sync{IoOp::fsync, file, nullptr, 0, 0, 1};
  engine->submit({&sync, 1});
  IoCompletion done;
  ASSERT_EQ(engine->reap(1, {&done, 1}), 1u);
  EXPECT_EQ(done.tag, 1u);
  EXPECT_EQ(done.result, 0);

  IoLoopConfig read;  // the file is empty: the first read comes back with 0 bytes
  read.block_size = 4096;
  read.region_bytes = 4096;
  read.max_bytes = 4096;
  read.file_label = path.string();
  try {
    run_io_loop(*engine, file, read);
    FAIL() << "short read not reported";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("offset 0 of " + path.string()), std::string::npos)
        << error.what();
  }
  engine->close(file);
}

TEST_P(RealEngine, AdoptsOnlyAnOpenFile) {
  // Engines open nothing by path (ScratchDir::open_file opens relative to the folder it made).
  auto engine = make_io_engine(GetParam(), 1);
  EXPECT_THROW(engine->adopt(UniqueFd()), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Engines, RealEngine, ::testing::ValuesIn([] {
                           std::vector<std::string> engines;
                           for (const std::string& name : available_io_engines()) {
                             if (name == "null") continue;
                             if (name == "io_uring" && default_io_engine() != "io_uring") continue;
                             engines.push_back(name);
                           }
                           return engines;
                         }()),
                         // Named by engine: scripts/test.sh reports which engines were tested.
                         [](const ::testing::TestParamInfo<std::string>& engine) {
                           return engine.param;
                         });

}  // namespace
}  // namespace fabcheck
