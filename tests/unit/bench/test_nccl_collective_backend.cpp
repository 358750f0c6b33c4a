// NcclCollectiveBackend's host-side logic on a test double runtime: members and their table lines,
// id exchange, per-member verification, timing, polling, timeout and abort, error text,
// environment.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "bench/coll/nccl_collective_backend.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/core/timer.hpp"
#include "results/config_error.hpp"
#include "test_nccl_doubles.hpp"

namespace fabcheck {
namespace {

using testing::FakeNcclRuntime;
using testing::ScriptedWorld;

class NcclCollectiveBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_dir_ = std::filesystem::temp_directory_path() /
               ("fabcheck-nccl-test-" + std::to_string(::getpid()));
    options_.probe_timeout_s = 5;
  }
  void TearDown() override { std::filesystem::remove_all(run_dir_); }

  std::unique_ptr<NcclCollectiveBackend> make(World& world, const std::string& visible = "",
                                              const NcclBackendSettings& settings = {}) {
    return std::make_unique<NcclCollectiveBackend>(std::make_unique<FakeNcclRuntime>(shared_),
                                                   world, options_, run_dir_, "coll.all_reduce",
                                                   settings, visible);
  }

  static CollectiveShape shape_of(std::uint64_t send_count, std::uint64_t recv_count) {
    return {recv_count * 4, recv_count, send_count, recv_count};
  }

  FakeNcclRuntime::Shared shared_;
  RunOptions options_;
  std::filesystem::path run_dir_;
  ScriptedWorld single_{0, {"host-a"}, false};
};

TEST_F(NcclCollectiveBackendTest, WithoutMpiOneProcessDrivesEveryVisibleGpu) {
  shared_.devices = 3;
  auto backend = make(single_, "5,6,7");
  EXPECT_EQ(backend->name(), "nccl");
  EXPECT_EQ(backend->comm_size(), 3);
  EXPECT_EQ(backend->member_descriptions(),
            (std::vector<std::string>{"rank 0 host-a gpu 5 0000:05:00.0 Fake H200",
                                      "rank 1 host-a gpu 6 0000:06:00.0 Fake H200",
                                      "rank 2 host-a gpu 7 0000:07:00.0 Fake H200"}));
  EXPECT_EQ(shared_.nranks, 3);
  ASSERT_EQ(shared_.specs.size(), 3u);
  EXPECT_EQ(shared_.specs[2].device_ordinal, 2);
  EXPECT_EQ(shared_.specs[2].rank, 2);
  EXPECT_EQ(shared_.init_id, shared_.id);
  EXPECT_EQ(shared_.unique_ids_made, 1);
}

TEST_F(NcclCollectiveBackendTest, UnderMpiEachRankDrivesTheGpuOfItsLocalRank) {
  shared_.devices = 2;
  ScriptedWorld rank2(2, {"a", "b", "a", "b"}, true);
  rank2.broadcast_reply = encode_unique_id(testing::id_filled_with(0x11));
  auto backend = make(rank2);
  EXPECT_EQ(backend->comm_size(), 4);
  EXPECT_EQ(backend->member_descriptions(),
            std::vector<std::string>{"rank 2 a gpu 1 0000:06:00.0 Fake H200"});
  EXPECT_EQ(shared_.unique_ids_made, 0);  // not the root: the id comes from the broadcast
  EXPECT_EQ(shared_.init_id, testing::id_filled_with(0x11));
}

TEST_F(NcclCollectiveBackendTest, HostScopeMakesOneCommunicatorPerNode) {
  shared_.devices = 2;
  ScriptedWorld rank3(3, {"a", "b", "a", "b"}, true);
  const std::string hex_b = encode_unique_id(testing::id_filled_with(0xbb));
  rank3.broadcast_reply = encode_unique_id(testing::id_filled_with(0xaa)) + "\n" + hex_b + "\n\n\n";
  NcclBackendSettings settings;
  settings.scope = NcclScope::host;
  auto backend = make(rank3, "", settings);
  EXPECT_EQ(backend->comm_size(), 2);
  ASSERT_EQ(shared_.specs.size(), 1u);
  EXPECT_EQ(shared_.specs[0].rank, 1);
  EXPECT_EQ(shared_.specs[0].device_ordinal, 1);
  EXPECT_EQ(shared_.init_id, testing::id_filled_with(0xbb));
}

TEST_F(NcclCollectiveBackendTest, MoreRanksThanGpusIsAConfigError) {
  shared_.devices = 2;
  ScriptedWorld rank0(0, {"a", "a", "a"}, true);
  EXPECT_THROW(make(rank0), ConfigError);
  options_.extra["nccl.share_gpus"] = "1";
  EXPECT_NO_THROW(make(rank0));
}

TEST_F(NcclCollectiveBackendTest, NoDeviceIsAClearError) {
  shared_.devices = 0;
  try {
    make(single_, "3");
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_STREQ(error.what(), "nccl: no CUDA device visible on host-a (CUDA_VISIBLE_DEVICES=3)");
  }
}

TEST_F(NcclCollectiveBackendTest, EveryCollectiveVerifiesCleanInBothPlacements) {
  shared_.devices = 4;
  auto backend = make(single_);
  const std::vector<std::pair<Collective, CollectiveShape>> cases{
      {Collective::all_reduce, shape_of(64, 64)},     {Collective::all_gather, shape_of(16, 64)},
      {Collective::reduce_scatter, shape_of(64, 16)}, {Collective::broadcast, shape_of(64, 64)},
      {Collective::alltoall, shape_of(64, 64)},       {Collective::sendrecv, shape_of(64, 64)}};
  for (const auto& [collective, shape] : cases) {
    for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (!backend->supports(collective, placement)) continue;
      SCOPED_TRACE(std::string(collective_name(collective)) + " " + placement_name(placement));
      backend->prepare(collective, placement, shape);
      backend->fill_inputs(7);
      backend->run_timed(1);
      EXPECT_EQ(backend->count_wrong(7), (std::vector<std::uint64_t>{0, 0, 0, 0}));
      // Outputs poisoned by a fill and not yet written by an operation count as wrong.
      backend->fill_inputs(8);
      EXPECT_NE(backend->count_wrong(8), (std::vector<std::uint64_t>{0, 0, 0, 0}));
    }
  }
  EXPECT_FALSE(backend->supports(Collective::alltoall, Placement::in_place));
  EXPECT_FALSE(backend->supports(Collective::sendrecv, Placement::in_place));
  EXPECT_TRUE(backend->supports(Collective::all_gather, Placement::in_place));
}

TEST_F(NcclCollectiveBackendTest, WrongElementsAreCountedPerMember) {
  shared_.devices = 3;
  shared_.corrupt_elements = {{1, 5}};
  auto backend = make(single_);
  backend->prepare(Collective::all_reduce, Placement::out_of_place, shape_of(32, 32));
  backend->fill_inputs(1);
  backend->run_timed(1);
  EXPECT_EQ(backend->count_wrong(1), (std::vector<std::uint64_t>{0, 5, 0}));
}

TEST_F(NcclCollectiveBackendTest, TimeIsTheSlowestMembers) {
  shared_.devices = 3;
  shared_.elapsed = {{0, 0.001}, {1, 0.003}, {2, 0.002}};
  auto backend = make(single_);
  backend->prepare(Collective::all_reduce, Placement::out_of_place, shape_of(8, 8));
  backend->fill_inputs(1);
  EXPECT_DOUBLE_EQ(backend->run_timed(4), 0.003);
  EXPECT_EQ(shared_.enqueues, 4);
}

TEST_F(NcclCollectiveBackendTest, InitIsPolledUntilReady) {
  shared_.init_in_progress_polls = 3;
  auto backend = make(single_);
  EXPECT_GE(shared_.polls, 3 + 2);  // three answers in progress, then both members ready
  EXPECT_EQ(shared_.aborts, 0);
}

TEST_F(NcclCollectiveBackendTest, InitFailureAbortsAndReportsNcclsText) {
  shared_.init_result = {NcclCommState::failed, "unhandled system error (bootstrap: no socket)"};
  try {
    make(single_, "0,1");
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_STREQ(error.what(),
                 "nccl: creating the communicator of 2 ranks failed on host-a gpu 0 (rank 0, "
                 "0000:05:00.0): unhandled system error (bootstrap: no socket)");
    EXPECT_FALSE(error.timed_out());
  }
  EXPECT_EQ(shared_.aborts, 1);
}

TEST_F(NcclCollectiveBackendTest, AHungGpuTimesOutAbortsAndIsNamed) {
  shared_.devices = 3;
  shared_.hung_members = {2};
  options_.probe_timeout_s = 0.05;
  auto backend = make(single_, "4,5,6");
  backend->prepare(Collective::all_reduce, Placement::out_of_place, shape_of(256, 256));
  backend->fill_inputs(1);
  const double start = now_seconds();
  try {
    backend->run_timed(2);
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_TRUE(error.timed_out());
    EXPECT_STREQ(error.what(),
                 "nccl: 2 x all_reduce (out-of-place, 1KiB) did not complete within the probe "
                 "timeout of 0.05 s on host-a gpu 6 (rank 2, 0000:07:00.0); communicators aborted");
  }
  EXPECT_LT(now_seconds() - start, 2.0);
  EXPECT_EQ(shared_.aborts, 1);
  // The backend refuses further work instead of touching aborted communicators.
  try {
    backend->fill_inputs(2);
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_STREQ(error.what(), "nccl: the communicators were aborted after an earlier failure");
  }
  EXPECT_EQ(shared_.aborts, 1);
}

TEST_F(NcclCollectiveBackendTest, AnAsyncErrorAbortsWithNcclsLastError) {
  shared_.devices = 2;
  shared_.failing_members = {{1,
                              "remote process exited or there was a network error "
                              "(NET/IB : Got completion from peer with error 12)"}};
  auto backend = make(single_);
  backend->prepare(Collective::all_gather, Placement::out_of_place, shape_of(8, 16));
  backend->fill_inputs(1);
  try {
    backend->run_timed(1);
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_FALSE(error.timed_out());
    EXPECT_STREQ(error.what(),
                 "nccl: 1 x all_gather (out-of-place, 64B) failed on host-a gpu 1 (rank 1, "
                 "0000:06:00.0): remote process exited or there was a network error (NET/IB : Got "
                 "completion from peer with error 12)");
  }
  EXPECT_EQ(shared_.aborts, 1);
}

TEST_F(NcclCollectiveBackendTest, DebugLogSettingsHoldDuringInitAndAreRestoredAfter) {
  ::unsetenv("NCCL_DEBUG");
  ::unsetenv("NCCL_DEBUG_FILE");
  ::unsetenv("NCCL_P2P_DISABLE");
  NcclBackendSettings settings;
  settings.forced_environment = nic_loopback_environment();
  auto backend = make(single_, "", settings);
  EXPECT_EQ(shared_.env_at_init.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(shared_.env_at_init.at("NCCL_DEBUG_FILE"),
            (run_dir_ / "nccl-logs" / "coll.all_reduce.%h.%p.log").string());
  EXPECT_EQ(shared_.env_at_init.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(shared_.rereads, 1);
  EXPECT_TRUE(std::filesystem::is_directory(run_dir_ / "nccl-logs"));
  EXPECT_EQ(std::getenv("NCCL_DEBUG"), nullptr);
  EXPECT_EQ(std::getenv("NCCL_DEBUG_FILE"), nullptr);
  EXPECT_EQ(std::getenv("NCCL_P2P_DISABLE"), nullptr);
}

TEST_F(NcclCollectiveBackendTest, TheUsersNcclDebugIsKept) {
  ::setenv("NCCL_DEBUG", "WARN", 1);
  auto backend = make(single_);
  EXPECT_EQ(shared_.env_at_init.at("NCCL_DEBUG"), "WARN");
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "WARN");
  ::unsetenv("NCCL_DEBUG");
}

}  // namespace
}  // namespace fabcheck
