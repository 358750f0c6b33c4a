// The shared storage.* options: defaults, parsing, and ConfigError messages naming key, value and
// rule (unknown storage.* keys are the registry's to refuse: see shipped_plans_test; the options
// one probe reads are tested through that probe in storage_probes_test).
#include "storage/storage_options.hpp"

#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

RunOptions with(std::map<std::string, std::string> extra) {
  RunOptions options;
  options.extra = std::move(extra);
  return options;
}

std::string error_of(const RunOptions& options) {
  try {
    storage_options_from(options);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(StorageOptions, DefaultsSuitAGate) {
  const StorageOptions options = storage_options_from(RunOptions{});
  EXPECT_EQ(options.file_size, 64u << 20);
  EXPECT_EQ(options.block_size, 1u << 20);
  EXPECT_EQ(options.queue_depth, 32u);
  EXPECT_DOUBLE_EQ(options.duration_s, 2.0);
  EXPECT_TRUE(options.direct);
  EXPECT_FALSE(options.ckpt_direct);
}

TEST(StorageOptions, ParsesEveryKey) {
  const StorageOptions options = storage_options_from(with({{"storage.file_size", "4G"},
                                                            {"storage.block_size", "128K"},
                                                            {"storage.queue_depth", "64"},
                                                            {"storage.duration_s", "15.5"},
                                                            {"storage.engine", "psync"},
                                                            {"storage.direct", "0"},
                                                            {"storage.ckpt_size", "1G"},
                                                            {"storage.ckpt_direct", "yes"},
                                                            {"coll.other_family", "ignored"}}));
  EXPECT_EQ(options.file_size, 4ull << 30);
  EXPECT_EQ(options.block_size, 128u << 10);
  EXPECT_EQ(options.queue_depth, 64u);
  EXPECT_DOUBLE_EQ(options.duration_s, 15.5);
  EXPECT_EQ(options.engine, "psync");
  EXPECT_FALSE(options.direct);
  EXPECT_EQ(options.ckpt_size, 1ull << 30);
  EXPECT_TRUE(options.ckpt_direct);
}

TEST(StorageOptions, BadValuesNameKeyValueAndRule) {
  EXPECT_EQ(error_of(with({{"storage.file_size", "lots"}})),
            "--opt storage.file_size=lots: not a byte size; expected a byte size (4096, 4K, 256M, "
            "1G) at least 4KiB, a multiple of 4KiB");
  EXPECT_EQ(error_of(with({{"storage.block_size", "1000"}})),
            "--opt storage.block_size=1000: out of range; expected a byte size (4096, 4K, 256M, "
            "1G) from 4KiB to 1GiB, a multiple of 4KiB");
  EXPECT_EQ(error_of(with({{"storage.queue_depth", "0"}})),
            "--opt storage.queue_depth=0: out of range; expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of(with({{"storage.duration_s", "-1"}})),
            "--opt storage.duration_s=-1: out of range; expected a finite number above 0 and at "
            "most 3600");
  EXPECT_EQ(error_of(with({{"storage.duration_s", "inf"}})),
            "--opt storage.duration_s=inf: not a finite number; expected a finite number above 0 "
            "and at most 3600");
  EXPECT_EQ(error_of(with({{"storage.direct", "maybe"}})),
            "--opt storage.direct=maybe: not a flag; expected a flag: 1/0, true/false, yes/no, "
            "on/off");
  EXPECT_NE(error_of(with({{"storage.engine", "libaio"}})).find("storage.engine=libaio"),
            std::string::npos);
  EXPECT_NE(error_of(with({{"storage.file_size", "4K"}})).find("smaller than storage.block_size"),
            std::string::npos);
}

}  // namespace
}  // namespace fabcheck
