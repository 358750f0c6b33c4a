// NcclCollectiveBackend's host-side logic on a test double runtime: members and their table lines,
// id exchange, GPU choice by bus id, per-member verification, the gated timing of a sample (the
// order of gate, events and launches), polling, timeout and abort, error text, the environment
// NCCL sees at its first operation, one rank's failure stopping every rank.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>

#include <unistd.h>

#include "bench/coll/nccl_collective_backend.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_process_settings.hpp"
#include "bench/coll/register.hpp"
#include "bench/core/rank_agreement.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/timer.hpp"
#include "tests/doubles/thread_world.hpp"
#include "tests/unit/coll/nccl_doubles.hpp"

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
  void TearDown() override {
    std::filesystem::remove_all(run_dir_);
    reset_nccl_process_settings_for_tests();
  }

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

// Each rank of a ThreadWorld builds a backend on its own test double (shared[rank] scripts it);
// `then` runs on each rank's backend. Returns what each rank threw ("" when it did not).
std::vector<std::string> build_on_ranks(
    const std::vector<std::string>& hosts, std::vector<FakeNcclRuntime::Shared>& shared,
    const RunOptions& options, const std::filesystem::path& run_dir,
    const NcclBackendSettings& settings = {},
    const std::function<void(CollectiveBackend&, World&)>& then = {}) {
  shared.resize(hosts.size());
  return testing::run_ranks(hosts, [&](World& world) {
    NcclCollectiveBackend backend(
        std::make_unique<FakeNcclRuntime>(shared[static_cast<std::size_t>(world.rank())]), world,
        options, run_dir, "coll.all_reduce", settings, "");
    if (then) then(backend, world);
  });
}

TEST_F(NcclCollectiveBackendTest, UnderMpiEachRankDrivesTheGpuOfItsLocalRank) {
  std::vector<FakeNcclRuntime::Shared> shared(4);
  std::vector<std::vector<std::string>> members(4);
  std::vector<int> sizes(4);
  const auto errors = build_on_ranks({"a", "b", "a", "b"}, shared, options_, run_dir_, {},
                                     [&](CollectiveBackend& backend, World& world) {
                                       members[world.rank()] = backend.member_descriptions();
                                       sizes[world.rank()] = backend.comm_size();
                                     });
  EXPECT_EQ(errors, (std::vector<std::string>(4, "")));
  EXPECT_EQ(sizes, (std::vector<int>{4, 4, 4, 4}));
  EXPECT_EQ(members[2], std::vector<std::string>{"rank 2 a gpu 1 0000:06:00.0 Fake H200"});
  EXPECT_EQ(members[3], std::vector<std::string>{"rank 3 b gpu 1 0000:06:00.0 Fake H200"});
  EXPECT_EQ(shared[0].unique_ids_made, 1);  // the root's id reaches every rank
  EXPECT_EQ(shared[2].unique_ids_made, 0);
  EXPECT_EQ(shared[2].init_id, shared[0].id);
}

TEST_F(NcclCollectiveBackendTest, HostScopeMakesOneCommunicatorPerNode) {
  std::vector<FakeNcclRuntime::Shared> shared(4);
  for (std::size_t r = 0; r < shared.size(); ++r) {
    shared[r].id = testing::id_filled_with(static_cast<std::uint8_t>(0xa0 + r));
  }
  NcclBackendSettings settings;
  settings.scope = NcclScope::host;
  const auto errors = build_on_ranks({"a", "b", "a", "b"}, shared, options_, run_dir_, settings);
  EXPECT_EQ(errors, (std::vector<std::string>(4, "")));
  EXPECT_EQ(shared[3].nranks, 2);
  ASSERT_EQ(shared[3].specs.size(), 1u);
  EXPECT_EQ(shared[3].specs[0].rank, 1);
  EXPECT_EQ(shared[3].specs[0].device_ordinal, 1);
  // Node b's id comes from its first rank (1), node a's from rank 0.
  EXPECT_EQ(shared[3].init_id, testing::id_filled_with(0xa1));
  EXPECT_EQ(shared[2].init_id, testing::id_filled_with(0xa0));
}

// Defect 4: `srun --gpus-per-task=1` gives each rank one visible device, its own. The old code
// compared the ranks of a host with the devices one rank sees and refused every NCCL probe.
TEST_F(NcclCollectiveBackendTest, OneVisibleGpuPerRankIsAccepted) {
  std::vector<FakeNcclRuntime::Shared> shared(4);
  for (std::size_t r = 0; r < shared.size(); ++r) {
    shared[r].devices = 1;
    shared[r].first_bus = 0x17 + static_cast<int>(r);  // each rank sees another GPU as ordinal 0
  }
  std::vector<std::vector<std::string>> members(4);
  const auto errors = build_on_ranks({"a", "a", "a", "a"}, shared, options_, run_dir_, {},
                                     [&](CollectiveBackend& backend, World& world) {
                                       members[world.rank()] = backend.member_descriptions();
                                     });
  EXPECT_EQ(errors, (std::vector<std::string>(4, "")));
  EXPECT_EQ(members[3], std::vector<std::string>{"rank 3 a gpu 0 0000:1a:00.0 Fake H200"});
  for (const auto& s : shared) {
    ASSERT_EQ(s.specs.size(), 1u);
    EXPECT_EQ(s.specs[0].device_ordinal, 0);
    EXPECT_EQ(s.nranks, 4);
  }
}

// Two ranks of a host on one GPU: refused on every rank, naming the host, the GPU and the ranks
// (NCCL refuses it too: "Duplicate GPU detected"). Ranks of other hosts may have the same bus id.
TEST_F(NcclCollectiveBackendTest, TwoRanksOfAHostOnOneGpuAreRefusedOnEveryRank) {
  std::vector<FakeNcclRuntime::Shared> shared(4);
  for (auto& s : shared) s.devices = 1;
  const auto errors = build_on_ranks({"a", "a", "b", "c"}, shared, options_, run_dir_);
  for (const auto& message : errors) {
    EXPECT_EQ(message,
              "nccl: two ranks on one GPU, which NCCL refuses (\"Duplicate GPU detected\"): host "
              "a: ranks 0 (CUDA_VISIBLE_DEVICES unset), 1 (CUDA_VISIBLE_DEVICES unset) all chose "
              "GPU 0000:05:00.0; launch one rank per GPU (as many ranks per node as GPUs, or srun "
              "--gpus-per-task=1)");
  }
  for (const auto& s : shared) EXPECT_TRUE(s.specs.empty()) << "no communicator was started";
}

// Defect 7: a rank-local error in device selection stops every rank at once, naming that rank,
// instead of leaving the others in the id exchange until the watchdog fires.
TEST_F(NcclCollectiveBackendTest, ADeviceErrorOnOneRankStopsEveryRankNamingIt) {
  std::vector<FakeNcclRuntime::Shared> shared(3);
  shared[1].device_count_error = "no CUDA device (cudaErrorNoDevice: no CUDA-capable device)";
  const double start = now_seconds();
  const auto errors = build_on_ranks({"a", "b", "c"}, shared, options_, run_dir_);
  EXPECT_LT(now_seconds() - start, 2.0);
  for (const auto& message : errors) {
    EXPECT_NE(message.find("rank 1 (b)"), std::string::npos) << message;
    EXPECT_NE(message.find("no CUDA-capable device"), std::string::npos) << message;
  }
}

// coll.node_pairs: four ranks on four hosts, pairs a--c and b--d this round. Each rank splits its
// backend with its pair's color and key; each gets a communicator of its pair (ncclCommSplit).
TEST_F(NcclCollectiveBackendTest, SplitGivesEachPairOfNodesACommunicatorOfItsOwn) {
  std::vector<FakeNcclRuntime::Shared> shared(4);
  for (auto& s : shared) s.devices = 1;
  const std::vector<std::string> hosts{"a", "b", "c", "d"};
  std::vector<std::vector<std::string>> members(4);
  std::vector<int> sizes(4, 0);
  const auto errors = build_on_ranks(
      hosts, shared, options_, run_dir_, {}, [&](CollectiveBackend& backend, World& world) {
        const int r = world.rank();
        const int color = r % 2;  // a--c: 0, b--d: 1
        const int key = r / 2;    // a, b first; c, d second
        ScriptedWorld pair(key, {hosts[color], hosts[color + 2]}, true);
        auto child = backend.split(&pair, color, key);
        ASSERT_NE(child, nullptr);
        members[r] = child->member_descriptions();
        sizes[r] = child->comm_size();
      });
  EXPECT_EQ(errors, (std::vector<std::string>(4, "")));
  EXPECT_EQ(sizes, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(members[3], std::vector<std::string>{"rank 1 d gpu 0 0000:05:00.0 Fake H200"});
  for (int r = 0; r < 4; ++r) {
    const auto& s = shared[static_cast<std::size_t>(r)];
    EXPECT_EQ(s.split_calls, (std::vector<std::pair<int, int>>{{r % 2, r / 2}})) << r;
    ASSERT_EQ(s.split_children.size(), 1u);
    EXPECT_EQ(s.split_children[0]->specs.at(0).rank, r / 2) << r;
    EXPECT_EQ(s.aborts, 0);
  }
}

// A rank resting this round (odd number of nodes) takes part in the split and gets no backend.
TEST_F(NcclCollectiveBackendTest, ARankOutsideEveryPairTakesPartAndGetsNothing) {
  std::vector<FakeNcclRuntime::Shared> shared(1);
  shared[0].devices = 1;
  const auto errors = build_on_ranks({"a"}, shared, options_, run_dir_, {},
                                     [&](CollectiveBackend& backend, World&) {
                                       EXPECT_EQ(backend.split(nullptr, -1, 0), nullptr);
                                     });
  EXPECT_EQ(errors, std::vector<std::string>{""});
  EXPECT_EQ(shared[0].split_calls, (std::vector<std::pair<int, int>>{{-1, 0}}));
  EXPECT_TRUE(shared[0].split_children.empty());
}

TEST_F(NcclCollectiveBackendTest, AFailedSplitAbortsAndNamesTheGpu) {
  std::vector<FakeNcclRuntime::Shared> shared(2);
  for (auto& s : shared) {
    s.devices = 1;
    s.split_result = {NcclCommState::failed, "unhandled system error"};
  }
  const auto errors = build_on_ranks({"a", "b"}, shared, options_, run_dir_, {},
                                     [&](CollectiveBackend& backend, World& world) {
                                       ScriptedWorld pair(world.rank(), {"a", "b"}, true);
                                       backend.split(&pair, 0, 0);
                                     });
  for (const auto& error : errors) {
    EXPECT_NE(error.find("ncclCommSplit"), std::string::npos) << error;
    EXPECT_NE(error.find("unhandled system error"), std::string::npos) << error;
  }
  EXPECT_EQ(shared[0].aborts, 1);
}

TEST_F(NcclCollectiveBackendTest, SplittingOneProcessWithEveryGpuIsRefused) {
  shared_.devices = 2;
  auto backend = make(single_);
  ScriptedWorld pair(0, {"host-a"}, false);
  EXPECT_THROW(backend->split(&pair, 0, 0), NcclError);
}

TEST_F(NcclCollectiveBackendTest, NoDeviceIsAClearError) {
  shared_.devices = 0;
  try {
    make(single_, "3");
    FAIL() << "expected RankFailure";
  } catch (const RankFailure& error) {
    EXPECT_STREQ(error.what(),
                 "choosing the GPU of each rank failed on rank 0 (host-a): nccl: no CUDA device "
                 "visible on host-a (CUDA_VISIBLE_DEVICES=3)");
  }
}

TEST_F(NcclCollectiveBackendTest, EveryCollectiveVerifiesCleanInBothPlacements) {
  shared_.devices = 4;
  auto backend = make(single_);
  const std::vector<std::pair<const char*, CollectiveShape>> cases{
      {"all_reduce", shape_of(64, 64)},     {"all_gather", shape_of(16, 64)},
      {"reduce_scatter", shape_of(64, 16)}, {"broadcast", shape_of(64, 64)},
      {"alltoall", shape_of(64, 64)},       {"sendrecv", shape_of(64, 64)}};
  for (const auto& [name, shape] : cases) {
    const Collective& collective = find_collective(name);
    for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (!backend->supports(collective, placement)) continue;
      SCOPED_TRACE(collective.name() + " " + placement_name(placement));
      backend->prepare(collective, placement, shape, {});
      backend->fill_inputs(7);
      backend->run_untimed(1);
      EXPECT_EQ(backend->count_wrong(7), (std::vector<std::uint64_t>{0, 0, 0, 0}));
      // Outputs poisoned by a fill and not yet written by an operation count as wrong.
      backend->fill_inputs(8);
      EXPECT_NE(backend->count_wrong(8), (std::vector<std::uint64_t>{0, 0, 0, 0}));
    }
  }
  EXPECT_FALSE(backend->supports(find_collective("alltoall"), Placement::in_place));
  EXPECT_FALSE(backend->supports(find_collective("sendrecv"), Placement::in_place));
  EXPECT_TRUE(backend->supports(find_collective("all_gather"), Placement::in_place));
}

TEST_F(NcclCollectiveBackendTest, WrongElementsAreCountedPerMember) {
  shared_.devices = 3;
  shared_.corrupt_elements = {{1, 5}};
  auto backend = make(single_);
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(32, 32), {});
  backend->fill_inputs(1);
  backend->run_untimed(1);
  EXPECT_EQ(backend->count_wrong(1), (std::vector<std::uint64_t>{0, 5, 0}));
}

TEST_F(NcclCollectiveBackendTest, EachOperationCarriesThePreparedTypeAndReduction) {
  shared_.devices = 2;
  auto backend = make(single_);
  const verify::Element int8_prod{verify::DataType::int8, verify::ReduceOp::prod};
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8),
                   int8_prod);
  backend->fill_inputs(1);
  backend->run_untimed(2);
  const verify::Element half_avg{verify::DataType::float16, verify::ReduceOp::avg};
  backend->prepare(find_collective("reduce_scatter"), Placement::out_of_place, shape_of(8, 4),
                   half_avg);
  backend->fill_inputs(2);
  backend->run_untimed(1);
  ASSERT_EQ(shared_.enqueued_elements.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(shared_.enqueued_elements[i].type, verify::DataType::int8);
    EXPECT_EQ(shared_.enqueued_elements[i].op, verify::ReduceOp::prod);
  }
  EXPECT_EQ(shared_.enqueued_elements[2].type, verify::DataType::float16);
  EXPECT_EQ(shared_.enqueued_elements[2].op, verify::ReduceOp::avg);
}

TEST_F(NcclCollectiveBackendTest, TimeIsTheSlowestMembers) {
  shared_.devices = 3;
  shared_.elapsed = {{0, 0.001}, {1, 0.003}, {2, 0.002}};
  auto backend = make(single_);
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8), {});
  backend->fill_inputs(1);
  backend->queue_sample(4);
  EXPECT_DOUBLE_EQ(backend->complete_sample(), 0.003);
  EXPECT_EQ(shared_.enqueues, 4);
}

// Defect 1: a timed sample holds every stream behind the gate, records the start event, queues all
// its operations, records the stop event, and only then (complete_sample, after the engine's
// barrier) opens the gate; completion is waited for after that. Nothing the host does between the
// two events (launching, polling NCCL's launch thread) can be in the interval.
TEST_F(NcclCollectiveBackendTest, ASampleIsGateStartOperationsStopThenRelease) {
  shared_.devices = 2;
  shared_.enqueue_in_progress_polls = 2;  // ncclGroupEnd answers ncclInProgress each time
  auto backend = make(single_);
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8), {});
  backend->fill_inputs(1);
  shared_.calls.clear();
  backend->queue_sample(3);
  std::vector<std::string> queued;
  for (const auto& call : shared_.calls) {
    if (call != "poll") queued.push_back(call);
  }
  EXPECT_EQ(queued,
            (std::vector<std::string>{"close", "start", "enqueue", "enqueue", "enqueue", "stop"}));
  EXPECT_TRUE(shared_.gates_closed) << "the operations may not start before complete_sample()";
  EXPECT_GT(shared_.polls, 0);
  const std::size_t queued_calls = shared_.calls.size();
  EXPECT_DOUBLE_EQ(backend->complete_sample(), 0.001);
  ASSERT_GT(shared_.calls.size(), queued_calls);
  EXPECT_EQ(shared_.calls[queued_calls], "open");
  EXPECT_EQ(shared_.calls.back(), "elapsed");
  EXPECT_EQ(backend->samples_released_early(), 0);
}

// NCCL's launch can wait for the GPU (its work FIFO full): with the streams held that would never
// end, so the gate opens after the patience and the sample is counted as one with host time.
TEST_F(NcclCollectiveBackendTest, ALaunchWaitingForTheGpuOpensTheGateAndIsCounted) {
  shared_.enqueues_before_launch_blocks = 2;
  NcclBackendSettings settings;
  settings.gate_patience_s = 0.02;
  auto backend = make(single_, "", settings);
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8), {});
  backend->fill_inputs(1);
  backend->queue_sample(4);
  EXPECT_GT(backend->complete_sample(), 0.0);
  EXPECT_EQ(backend->samples_released_early(), 1);
  EXPECT_EQ(shared_.enqueues, 4);
}

// An error while queueing a sample lets the streams go before the communicators are aborted.
TEST_F(NcclCollectiveBackendTest, AFailedLaunchOpensTheGateBeforeTheAbort) {
  auto backend = make(single_);
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8), {});
  backend->fill_inputs(1);
  shared_.enqueue_error = "unhandled cuda error";
  shared_.calls.clear();
  EXPECT_THROW(backend->queue_sample(2), NcclError);
  EXPECT_FALSE(shared_.gates_closed);
  EXPECT_EQ(shared_.calls, (std::vector<std::string>{"close", "start", "open", "abort"}));
}

// A sample queued and never completed (another rank failed in between): destroying the backend
// opens the gate.
TEST_F(NcclCollectiveBackendTest, ABackendDestroyedWithAQueuedSampleOpensTheGate) {
  auto backend = make(single_);
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8), {});
  backend->fill_inputs(1);
  backend->queue_sample(2);
  EXPECT_TRUE(shared_.gates_closed);
  backend.reset();
  EXPECT_FALSE(shared_.gates_closed);
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
    FAIL() << "expected RankFailure";
  } catch (const RankFailure& error) {
    EXPECT_STREQ(error.what(),
                 "creating the NCCL communicators failed on rank 0 (host-a): nccl: creating the "
                 "communicator of 2 ranks failed on host-a gpu 0 (rank 0, 0000:05:00.0): unhandled "
                 "system error (bootstrap: no socket)");
  }
  EXPECT_EQ(shared_.aborts, 1);
}

TEST_F(NcclCollectiveBackendTest, AHungGpuTimesOutAbortsAndIsNamed) {
  shared_.devices = 3;
  shared_.hung_members = {2};
  options_.probe_timeout_s = 0.05;
  auto backend = make(single_, "4,5,6");
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(256, 256), {});
  backend->fill_inputs(1);
  const double start = now_seconds();
  try {
    backend->run_untimed(2);
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
  backend->prepare(find_collective("all_gather"), Placement::out_of_place, shape_of(8, 16), {});
  backend->fill_inputs(1);
  try {
    backend->run_untimed(1);
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

// Defect 3: NCCL 2.28 connects lazily and reads NCCL_SHM_DISABLE when the first operation
// connects, so the probe's settings must still be there then; they are restored once the backend
// (and its communicators) are gone.
TEST_F(NcclCollectiveBackendTest, ForcedSettingsHoldUntilTheFirstOperationAndAreRestoredAfter) {
  for (const char* name : FakeNcclRuntime::kEnvNames) ::unsetenv(name);
  NcclBackendSettings settings;
  settings.forced_environment = nic_loopback_environment(run_dir_, "coll.nic_loopback");
  auto backend = make(single_, "", settings);
  EXPECT_EQ(shared_.env_at_init.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(shared_.env_at_init.at("NCCL_DEBUG_FILE"),
            (run_dir_ / "nccl-logs" / "coll.nic_loopback.%h.%p.log").string());
  EXPECT_EQ(shared_.env_at_init.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(shared_.env_at_init.at("NCCL_RUNTIME_CONNECT"), "0");
  EXPECT_EQ(shared_.rereads, 1);
  EXPECT_TRUE(std::filesystem::is_directory(run_dir_ / "nccl-logs"));

  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, shape_of(8, 8), {});
  backend->fill_inputs(1);
  backend->run_untimed(1);
  EXPECT_EQ(shared_.env_at_first_enqueue.at("NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(shared_.env_at_first_enqueue.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(shared_.env_at_first_enqueue.at("NCCL_NET_GDR_LEVEL"), "5");

  backend.reset();
  for (const char* name : FakeNcclRuntime::kEnvNames) {
    EXPECT_EQ(std::getenv(name), nullptr) << name << " left set";
  }
}

// NCCL reads NCCL_P2P_DISABLE and the others once a process: after coll.nic_loopback forced them,
// another probe's communicator in the same process is refused, naming why, never measured.
TEST_F(NcclCollectiveBackendTest, AfterForcedTransportsAnotherProbesCommunicatorIsRefused) {
  EXPECT_EQ(nccl_transports_forced_reason(), "");
  auto plain_first = make(single_);  // an ordinary probe first: nothing is forced
  plain_first.reset();
  EXPECT_EQ(nccl_transports_forced_reason(), "");
  NcclBackendSettings settings;
  settings.forced_environment = nic_loopback_environment(run_dir_, "coll.nic_loopback");
  auto loopback = std::make_unique<NcclCollectiveBackend>(
      std::make_unique<FakeNcclRuntime>(shared_), single_, options_, run_dir_, "coll.nic_loopback",
      settings, "");
  loopback.reset();
  const std::string reason = nccl_transports_forced_reason();
  EXPECT_NE(reason.find("coll.nic_loopback made NCCL read NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1, "
                        "NCCL_NET_GDR_LEVEL=5, NCCL_RUNTIME_CONNECT=0 in this process"),
            std::string::npos)
      << reason;
  try {
    make(single_);
    FAIL() << "a communicator after the forced one was made";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("nccl: " + reason), std::string::npos) << error.what();
  }
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
