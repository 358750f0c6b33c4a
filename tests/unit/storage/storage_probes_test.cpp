// Every storage probe run in one process (single World) on a temporary directory with small
// sizes: its metrics come out, data verifies, nothing is left behind and nothing else is touched.
#include <gtest/gtest.h>

#include "bench/core/registry.hpp"
#include "bench/sys/config_error.hpp"
#include "results/profile.hpp"
#include "storage/fsync_probe.hpp"
#include "storage/register.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

class VectorSink final : public MeasurementSink {
 public:
  void emit(Measurement measurement) override { measurements.push_back(std::move(measurement)); }
  const Measurement* find(const std::string& metric) const {
    for (const Measurement& m : measurements) {
      if (m.metric == metric) return &m;
    }
    return nullptr;
  }
  std::vector<Measurement> measurements;
};

std::string ProbeTestName(const ::testing::TestParamInfo<std::string>& param_info) {
  return param_info.param.substr(param_info.param.find('.') + 1);
}

class StorageProbes : public ::testing::TestWithParam<std::string> {
 protected:
  StorageProbes() { register_storage_probes(registry_); }

  RunOptions small_options(const fs::path& path) const {
    RunOptions options;
    options.storage_paths = {path.string()};
    options.extra = {{"storage.file_size", "8M"},      {"storage.duration_s", "0.2"},
                     {"storage.ckpt_size", "4M"},      {"storage.md_files", "50"},
                     {"storage.block_size", "256K"},   {"storage.loader_bytes", "2M"},
                     {"storage.loader_sample", "16K"}, {"storage.loader_shard", "1M"},
                     {"storage.loader_workers", "1,3"}};
    return options;
  }

  Registry registry_;
};

TEST_P(StorageProbes, EmitsEveryDeclaredMetricAndLeavesNothingBehind) {
  TempDir dir;
  testing::write_whole_file(dir.path() / "existing.dat", "pre-existing bytes\n");
  Probe* probe = registry_.find(GetParam());
  ASSERT_NE(probe, nullptr);
  auto world = make_single_world();
  const RunOptions options = small_options(dir.path());
  ASSERT_TRUE(applicability_of(*probe, *world, options).applies);
  RunContext context{*world, options, dir.path() / "run"};
  VectorSink sink;
  probe->run(context, sink);

  for (const MetricSpec& spec : probe->metrics()) {
    const Measurement* m = sink.find(spec.name);
    ASSERT_NE(m, nullptr) << GetParam() << " did not emit " << spec.name;
    EXPECT_EQ(m->unit, spec.info.unit) << spec.name;
    EXPECT_EQ(m->probe, GetParam());
    EXPECT_EQ(m->subject, dir.path().string());
    EXPECT_FALSE(m->params.at("fs_type").empty());
    if (spec.name == "wrong_elements") {
      EXPECT_EQ(m->value, 0) << m->message;
    } else {
      EXPECT_GT(m->value, 0) << spec.name;
    }
  }
  // Only the pre-existing file is left, unchanged.
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"existing.dat"});
  EXPECT_EQ(testing::read_whole_file(dir.path() / "existing.dat"), "pre-existing bytes\n");
}

INSTANTIATE_TEST_SUITE_P(All, StorageProbes,
                         ::testing::Values("storage.seq_write", "storage.seq_read",
                                           "storage.rand_read", "storage.fsync_lat",
                                           "storage.ckpt_write", "storage.ckpt_read",
                                           "storage.metadata", "storage.contention",
                                           "storage.loader"),
                         ProbeTestName);

TEST(StorageProbeRegistry, WaivedWithoutAPathAndOneFamily) {
  Registry registry;
  register_storage_probes(registry);
  auto world = make_single_world();
  const auto probes = registry.select("storage.*");
  EXPECT_EQ(probes.size(), 9u);
  for (Probe* probe : probes) {
    const Applicability applies = applicability_of(*probe, *world, RunOptions{});
    EXPECT_FALSE(applies.applies) << probe->id();
    EXPECT_EQ(applies.reason, "no --storage-path given");
  }
}

TEST(StorageProbeRegistry, RandReadReportsBothQueueDepthsWithPercentiles) {
  TempDir dir;
  Registry registry;
  register_storage_probes(registry);
  auto world = make_single_world();
  RunOptions options;
  options.storage_paths = {dir.path().string()};
  options.extra = {{"storage.file_size", "4M"}, {"storage.duration_s", "0.2"}};
  RunContext context{*world, options, dir.path() / "run"};
  VectorSink sink;
  registry.find("storage.rand_read")->run(context, sink);
  const Measurement* p99 = sink.find("lat_p99_us_qd32");
  ASSERT_NE(p99, nullptr);
  ASSERT_TRUE(p99->stats.has_value());
  EXPECT_GT(p99->stats->count, 0u);
  EXPECT_LE(p99->stats->median, p99->value);
  EXPECT_EQ(p99->params.at("queue_depth"), "32");
  EXPECT_EQ(p99->size_bytes, 4096u);
  EXPECT_LE(std::stod(p99->params.at("p50_us")), std::stod(p99->params.at("p99.9_us")));
  EXPECT_EQ(sink.find("iops_qd1")->params.at("queue_depth"), "1");
}

TEST(StorageProbeRegistry, ProposedProfilesMatchTheMetricCatalog) {
  Registry registry;
  register_storage_probes(registry);
  const fs::path dir = fs::path(FABCHECK_FIXTURES_DIR) / "storage";
  const Profile nvme = load_profile(dir / "nvme-gen4.toml", registry.catalog());
  EXPECT_EQ(nvme.expectations.size(), 6u);
  EXPECT_EQ(nvme.expectations[3].better, Better::lower);  // lat_p99_us_qd1
  EXPECT_TRUE(load_profile(dir / "no-expectations.toml", registry.catalog()).expectations.empty());
}

TEST(StorageLoader, ReadsEverySmallFileOnceAndTheShardsPerWorkerCount) {
  TempDir dir;
  Registry registry;
  register_storage_probes(registry);
  auto world = make_single_world();
  RunOptions options;
  options.storage_paths = {dir.path().string()};
  options.extra = {{"storage.loader_bytes", "4M"},
                   {"storage.loader_sample", "32K"},
                   {"storage.loader_shard", "2M"},
                   {"storage.loader_workers", "2,4"},
                   {"storage.duration_s", "30"}};
  RunContext context{*world, options, dir.path() / "run"};
  VectorSink sink;
  registry.find("storage.loader")->run(context, sink);
  int points = 0;
  for (const Measurement& m : sink.measurements) {
    if (m.metric == "small_files_samples_per_s") {
      ++points;
      EXPECT_EQ(m.params.at("files_read"), "128");  // one epoch: each of the 128 files once
      EXPECT_EQ(m.params.at("samples"), "128");
    }
    if (m.metric == "shards_gbps") {
      EXPECT_EQ(m.params.at("files_read"), "2");
    }
  }
  EXPECT_EQ(points, 2);  // 2 and 4 workers
  options.extra["storage.loader_workers"] = "0";
  EXPECT_THROW(registry.find("storage.loader")->run(context, sink), ConfigError);
  options.extra["storage.loader_workers"] = "2";
  options.extra["storage.loader_bytes"] = "1M";  // smaller than a shard
  EXPECT_THROW(registry.find("storage.loader")->run(context, sink), ConfigError);
}

// An option one probe reads is declared and read in that probe's file: what it holds reaches the
// probe's own facts, and its rules are checked by that probe only.
TEST(StorageProbeOptions, ReadByTheProbeThatDeclaresThem) {
  Registry registry;
  register_storage_probes(registry);
  RunOptions options;
  options.extra = {{"storage.md_files", "10000"}, {"storage.fsync_block", "8K"}};
  EXPECT_EQ(registry.find("storage.metadata")->info().storage_bytes(options, 1), 10000u * 4096);
  EXPECT_EQ(registry.find("storage.fsync_lat")->info().storage_bytes(options, 1),
            8192u * kFsyncBlocks);

  options.extra = {{"storage.loader_bytes", "1M"}};  // smaller than a shard (64M)
  try {
    registry.find("storage.loader")->info().check_options(options);
    ADD_FAILURE() << "storage.loader accepted a data set smaller than a shard";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "--opt storage.loader_bytes=1MiB: smaller than one sample (storage.loader_sample, "
                 "128KiB) or one shard (storage.loader_shard, 64MiB)");
  }
  EXPECT_NO_THROW(registry.find("storage.seq_write")->info().check_options(options));

  options.extra = {{"storage.file_size", "512K"}};  // smaller than a block (1M): a shared rule
  for (const char* probe : {"storage.seq_write", "storage.loader", "storage.metadata"}) {
    EXPECT_THROW(registry.find(probe)->info().check_options(options), ConfigError) << probe;
  }
}

}  // namespace
}  // namespace fabcheck
