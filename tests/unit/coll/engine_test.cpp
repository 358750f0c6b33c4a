// The collective engine's timing loop on a recording backend and ranks as threads: samples of
// several operations, every rank's sample queued before any rank starts it (aligned per sample),
// one rank's failure ending every rank at once with that rank named, figures that mean nothing
// (one rank) emitted WAIVED with the reason, the parameters a profile's scope reads.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/register.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/timer.hpp"
#include "tests/doubles/thread_world.hpp"

namespace fabcheck {
namespace {

// What every rank's backend did, in one order across the ranks.
struct Timeline {
  std::mutex mutex;
  std::vector<std::string> events;  // "<rank> <what> <sample>"
  void add(int rank, const std::string& what, int sample) {
    const std::lock_guard lock(mutex);
    events.push_back(std::to_string(rank) + " " + what + " " + std::to_string(sample));
  }
  std::size_t position(const std::string& event) {
    const std::lock_guard lock(mutex);
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i] == event) return i;
    }
    return events.size();
  }
};

class RecordingBackend final : public CollectiveBackend {
 public:
  RecordingBackend(int rank, int size, Timeline& timeline)
      : rank_(rank), size_(size), t_(timeline) {}

  std::string name() const override { return "recording"; }
  int comm_size() const override { return size_; }
  bool supports(const Collective&, Placement) const override { return true; }
  std::vector<std::string> member_descriptions() const override {
    return {"rank " + std::to_string(rank_)};
  }
  void prepare(const Collective&, Placement, const CollectiveShape&,
               const verify::Element&) override {
    ++prepares;
  }
  void fill_inputs(std::uint32_t) override {
    if (!fill_error.empty()) throw std::runtime_error(fill_error);
  }
  void run_untimed(int count) override { untimed += count; }
  void queue_sample(int count) override {
    ops.push_back(count);
    if (slow_queue) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    t_.add(rank_, "queue", sample_);
  }
  double complete_sample() override {
    t_.add(rank_, "start", sample_);
    if (!complete_error.empty() && sample_ == 1) throw std::runtime_error(complete_error);
    ++sample_;
    return seconds_per_sample;
  }
  std::vector<std::uint64_t> count_wrong(std::uint32_t) override { return {0}; }
  int preferred_ops_per_sample() const override { return preferred_ops; }

  int preferred_ops = 4;
  std::string fill_error;
  std::string complete_error;
  bool slow_queue = false;
  double seconds_per_sample = 0.004;
  int prepares = 0;
  int untimed = 0;
  std::vector<int> ops;

 private:
  int rank_;
  int size_;
  Timeline& t_;
  int sample_ = 0;
};

class CollectingSink final : public MeasurementSink {
 public:
  void emit(Measurement m) override { measurements.push_back(std::move(m)); }
  const Measurement* find(const std::string& metric, const std::string& placement) const {
    for (const auto& m : measurements) {
      if (m.metric == metric && m.params.at("placement") == placement) return &m;
    }
    return nullptr;
  }
  std::vector<Measurement> measurements;
};

SweepConfig config_of(int iters, std::vector<Placement> placements = {Placement::out_of_place}) {
  SweepConfig config;
  config.collective = &find_collective("all_reduce");
  config.sizes = {1 << 20};
  config.iters = iters;
  config.warmup = 0;
  config.placements = std::move(placements);
  return config;
}

// Defect 2: no rank starts sample k before every rank has queued it, even when one rank is slow,
// and each sample times several operations. The old loop had no alignment and timed one operation.
TEST(EngineTiming, EveryRankQueuesASampleBeforeAnyRankStartsIt) {
  Timeline timeline;
  const std::vector<std::string> hosts{"a", "b", "c"};
  std::vector<std::vector<int>> ops(hosts.size());
  std::vector<int> untimed(hosts.size());
  const auto errors = testing::run_ranks(hosts, [&](World& world) {
    RecordingBackend backend(world.rank(), world.size(), timeline);
    backend.slow_queue = world.rank() == 2;
    CollectingSink sink;
    run_collective_sweep(backend, config_of(12), world, sink, "coll.all_reduce");
    ops[world.rank()] = backend.ops;
    untimed[world.rank()] = backend.untimed;
  });
  EXPECT_EQ(errors, std::vector<std::string>(3, ""));
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(ops[rank], (std::vector<int>{4, 4, 4})) << "rank " << rank;
    // Warm-up 0 still runs one untimed operation (NCCL connects lazily), and the check one more.
    EXPECT_EQ(untimed[rank], 2) << "rank " << rank;
  }
  for (int sample = 0; sample < 3; ++sample) {
    for (int queued = 0; queued < 3; ++queued) {
      for (int started = 0; started < 3; ++started) {
        const std::string queue = std::to_string(queued) + " queue " + std::to_string(sample);
        const std::string start = std::to_string(started) + " start " + std::to_string(sample);
        EXPECT_LT(timeline.position(queue), timeline.position(start))
            << start << " happened before " << queue;
      }
    }
  }
}

// Operations per sample: the backend's preference (MPI prefers 1), unless the run says.
TEST(EngineTiming, OperationsPerSampleAreTheBackendsUnlessTheRunSays) {
  Timeline timeline;
  std::vector<int> preferred_ops, chosen_ops;
  const auto errors = testing::run_ranks({"a"}, [&](World& world) {
    CollectingSink sink;
    RecordingBackend one(0, 1, timeline);
    one.preferred_ops = 1;
    run_collective_sweep(one, config_of(3), world, sink, "coll.all_reduce");
    preferred_ops = one.ops;
    RecordingBackend other(0, 1, timeline);
    other.preferred_ops = 1;
    SweepConfig config = config_of(12);
    config.ops_per_sample = 6;
    run_collective_sweep(other, config, world, sink, "coll.all_reduce");
    chosen_ops = other.ops;
  });
  EXPECT_EQ(errors, std::vector<std::string>{""});
  EXPECT_EQ(preferred_ops, (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(chosen_ops, (std::vector<int>{6, 6}));
}

TEST(EngineTiming, OpsPerSampleOptionIsCheckedAndNamed) {
  RunOptions options;
  EXPECT_EQ(ops_per_sample_from(options), 0);
  options.extra["coll.ops_per_sample"] = "8";
  EXPECT_EQ(ops_per_sample_from(options), 8);
  for (const char* bad : {"0", "1001", "x", ""}) {
    options.extra["coll.ops_per_sample"] = bad;
    try {
      ops_per_sample_from(options);
      FAIL() << bad;
    } catch (const ConfigError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind(std::string("--opt coll.ops_per_sample=") + bad + ": ", 0), 0u)
          << message;
      EXPECT_NE(message.find("expected a whole number from 1 to 1000"), std::string::npos)
          << message;
    }
  }
}

// The slowest rank decides each sample; time is per operation (the sample over its operations).
TEST(EngineTiming, TimeIsPerOperationOfTheSlowestRank) {
  Timeline timeline;
  CollectingSink sink0;
  const auto errors = testing::run_ranks({"a", "b"}, [&](World& world) {
    RecordingBackend backend(world.rank(), world.size(), timeline);
    backend.seconds_per_sample = world.rank() == 1 ? 0.008 : 0.004;
    CollectingSink sink;
    run_collective_sweep(backend, config_of(8), world, world.is_root() ? sink0 : sink,
                         "coll.all_reduce");
  });
  EXPECT_EQ(errors, std::vector<std::string>(2, ""));
  const Measurement* time = sink0.find("time_us", "out");
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(time->value, 2000.0);  // 8 ms for 4 operations on the slower rank
  EXPECT_EQ(time->stats->count, 2u);
  EXPECT_EQ(time->params.at("ops_per_sample"), "4");
  EXPECT_EQ(time->params.at("hosts"), "2");
  EXPECT_EQ(time->params.at("backend"), "recording");
}

// Defect 7: one rank's error in a step (filling inputs) ends every rank at once, naming that rank,
// instead of leaving the others in the next collective until the watchdog fires.
TEST(EngineTiming, OneRanksErrorEndsEveryRankAtOnceNamingIt) {
  Timeline timeline;
  const double start = now_seconds();
  const auto errors = testing::run_ranks({"node-a", "node-b", "node-c"}, [&](World& world) {
    RecordingBackend backend(world.rank(), world.size(), timeline);
    if (world.rank() == 1)
      backend.fill_error = "cuda: filling the input failed: an illegal address";
    CollectingSink sink;
    run_collective_sweep(backend, config_of(8), world, sink, "coll.all_reduce");
  });
  EXPECT_LT(now_seconds() - start, 2.0);
  for (const auto& error : errors) {
    EXPECT_NE(error.find("rank 1 (node-b)"), std::string::npos) << error;
    EXPECT_NE(error.find("an illegal address"), std::string::npos) << error;
  }
}

TEST(EngineTiming, AFailedSampleOnOneRankEndsEveryRankNamingIt) {
  Timeline timeline;
  const auto errors = testing::run_ranks({"node-a", "node-b"}, [&](World& world) {
    RecordingBackend backend(world.rank(), world.size(), timeline);
    if (world.rank() == 0) backend.complete_error = "nccl: remote process exited";
    CollectingSink sink;
    run_collective_sweep(backend, config_of(12), world, sink, "coll.all_reduce");
  });
  for (const auto& error : errors) {
    EXPECT_NE(error.find("rank 0 (node-a)"), std::string::npos) << error;
    EXPECT_NE(error.find("remote process exited"), std::string::npos) << error;
  }
}

// Defect 5: one rank has bus factor 0 for all-reduce, so busbw is WAIVED with the reason rather
// than a 0 that a floor fails; in place on one rank nothing moves, so algbw and busbw are WAIVED
// too.
TEST(EngineTiming, FiguresOfOneRankThatMeanNothingAreWaivedWithTheReason) {
  Timeline timeline;
  CollectingSink sink;
  const auto errors = testing::run_ranks({"a"}, [&](World& world) {
    RecordingBackend backend(0, 1, timeline);
    run_collective_sweep(backend, config_of(4, {Placement::out_of_place, Placement::in_place}),
                         world, sink, "coll.all_reduce");
  });
  EXPECT_EQ(errors, std::vector<std::string>{""});
  const Measurement* busbw = sink.find("busbw", "out");
  ASSERT_NE(busbw, nullptr);
  EXPECT_EQ(busbw->status, MeasurementStatus::waived);
  EXPECT_NE(busbw->message.find("bus factor of all_reduce is 0"), std::string::npos)
      << busbw->message;
  const Measurement* algbw_out = sink.find("algbw", "out");
  ASSERT_NE(algbw_out, nullptr);
  EXPECT_EQ(algbw_out->status, MeasurementStatus::ok);  // a local copy: a real figure
  for (const char* metric : {"algbw", "busbw"}) {
    const Measurement* in_place = sink.find(metric, "in");
    ASSERT_NE(in_place, nullptr);
    EXPECT_EQ(in_place->status, MeasurementStatus::waived) << metric;
    EXPECT_NE(in_place->message.find("nothing moves"), std::string::npos) << in_place->message;
  }
  EXPECT_EQ(sink.find("time_us", "in")->status, MeasurementStatus::ok);
  EXPECT_EQ(sink.find("wrong_elements", "in")->status, MeasurementStatus::ok);
}

TEST(EngineTiming, TwoRanksFiguresAreAllMeaningful) {
  for (const Collective* collective : all_collectives()) {
    for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
      for (const char* metric : {"time_us", "algbw", "busbw"}) {
        EXPECT_EQ(meaningless_figure_reason(*collective, placement, 2, metric), "")
            << collective->name() << " " << metric;
      }
    }
  }
  EXPECT_EQ(
      meaningless_figure_reason(find_collective("broadcast"), Placement::out_of_place, 1, "busbw"),
      "");  // bus factor 1: a local copy's bandwidth
}

}  // namespace
}  // namespace fabcheck
