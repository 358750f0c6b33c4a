// The runner's events, in the single-process world, with test-double probes and a reporter that
// records what it hears: the order for a normal run, a probe that throws, a probe whose requirement
// is not met, and an interrupt in the middle of a probe.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/core/interrupt.hpp"
#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "results/profile.hpp"
#include "tests/doubles/runner_doubles.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

using testing::emits;
using testing::recorded_request;
using testing::RecordingReporter;
using testing::ScriptedProbe;
using testing::test_profile;

struct Outcome {
  int code = -1;
  std::vector<std::string> events;
  nlohmann::json summary;
};

Outcome run_probes(const std::vector<Probe*>& probes, const std::filesystem::path& out) {
  Outcome outcome;
  {
    Runner runner(recorded_request(probes, out, outcome.events));
    auto world = make_single_world();
    outcome.code = runner.execute(*world);
  }
  outcome.summary = nlohmann::json::parse(testing::read_whole_file(out / "summary.json"));
  return outcome;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

TEST(RunnerEvents, ANormalRunInOrder) {
  testing::TempDir dir;
  ScriptedProbe a("test.a", [](MeasurementSink& sink) {
    sink.note("# test.a: one figure\n");
    emits("test.a", 5)(sink);
  });
  ScriptedProbe b("test.b", emits("test.b", 7));
  const Outcome run = run_probes({&a, &b}, dir.path() / "run");
  const std::vector<std::string> expected = {
      "run_started 2",
      "summary in_progress incomplete",
      "probe_started test.a 1/2",
      "note test.a # test.a: one figure\n",
      "progress test.a value",
      "measurements test.a 1",
      "finding pass test.a",
      "probe_finished test.a ran",
      "summary in_progress incomplete",
      "probe_started test.b 2/2",
      "progress test.b value",
      "measurements test.b 1",
      "finding pass test.b",
      "probe_finished test.b ran",
      "summary in_progress incomplete",
      "results_complete 2 2",
      "summary final pass",
      "run_finished pass 0 ",
  };
  EXPECT_EQ(run.events, expected) << joined(run.events);
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.summary["verdict"], "pass");
}

// Ticks, and where each came: "tick PROBE" while a probe is in flight, "tick outside" otherwise.
class TickCounter final : public Reporter {
 public:
  explicit TickCounter(std::vector<std::string>& log) : log_(log) {}
  void probe_started(const ProbeStart& p) override { in_flight_ = p.probe->id; }
  void tick(const ProbeStart& p) override {
    log_.push_back("tick " + (in_flight_ == p.probe->id ? in_flight_ : std::string("outside")));
  }
  void probe_finished(const ProbeEnd&) override { in_flight_.clear(); }

 private:
  std::vector<std::string>& log_;
  std::string in_flight_;
};

// A probe that counts its steps and runs 2.5 s: its steps reach the reporters as they come,
// between its start and its measurements, and the clock ticks about once a second while it runs,
// never outside a probe.
TEST(RunnerEvents, StepsAsTheyComeAndTheClockTicksWhileAProbeRuns) {
  testing::TempDir dir;
  ScriptedProbe slow("test.slow", [](MeasurementSink& sink) {
    sink.step({0, 2, "size", "1KiB"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1250));
    sink.step({1, 2, "size", "2KiB"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1250));
    emits("test.slow", 5)(sink);
    sink.step({2, 2, "size", ""});
  });
  ScriptedProbe quick("test.quick", emits("test.quick", 5));
  std::vector<std::string> events, ticks;
  RunRequest request = recorded_request({&slow, &quick}, dir.path() / "run", events);
  request.reporters.push_back(std::make_unique<TickCounter>(ticks));
  {
    Runner runner(std::move(request));
    auto world = make_single_world();
    EXPECT_EQ(runner.execute(*world), 0);
  }
  const std::vector<std::string> expected = {
      "probe_started test.slow 1/2", "step test.slow 0/2 1KiB", "step test.slow 1/2 2KiB",
      "progress test.slow value",    "step test.slow 2/2 ",     "measurements test.slow 1",
  };
  const auto from = std::find(events.begin(), events.end(), expected.front());
  ASSERT_NE(from, events.end()) << joined(events);
  EXPECT_EQ(std::vector<std::string>(from, from + static_cast<long>(expected.size())), expected)
      << joined(events);
  // 2.5 s at one a second: 2 ticks, fewer only on a machine too loaded to wake the thread.
  EXPECT_GE(ticks.size(), 1u) << joined(ticks);
  EXPECT_LE(ticks.size(), 3u) << joined(ticks);
  for (const auto& tick : ticks) EXPECT_EQ(tick, "tick test.slow") << joined(ticks);
}

TEST(RunnerEvents, AThrowingProbeIsAnErrorAndTheRunGoesOn) {
  testing::TempDir dir;
  ScriptedProbe broken("test.broken",
                       [](MeasurementSink&) { throw std::runtime_error("the widget fell off"); });
  ScriptedProbe after("test.after", emits("test.after", 9));
  const Outcome run = run_probes({&broken, &after}, dir.path() / "run");
  const std::string text = joined(run.events);
  EXPECT_NE(text.find("measurements test.broken 1\nfinding error test.broken\n"
                      "probe_finished test.broken errored (the widget fell off)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(after.runs, 1) << text;
  EXPECT_NE(text.find("probe_finished test.after ran\n"), std::string::npos) << text;
  ASSERT_FALSE(run.events.empty());
  EXPECT_EQ(run.events.back(),
            "run_finished incomplete 3 test.broken errored: the widget fell off");
  EXPECT_EQ(run.code, 3);
  EXPECT_EQ(run.summary["probes"]["errored"][0]["id"], "test.broken");
}

TEST(RunnerEvents, AProbeWhoseRequirementIsNotMetIsWaivedAndNeverRun) {
  testing::TempDir dir;
  ScriptedProbe needy("test.needy", emits("test.needy", 5),
                      {{.name = "a widget", .unmet = [](const World&, const RunOptions&) {
                          return std::string("no widget on this node");
                        }}});
  ScriptedProbe fine("test.fine", emits("test.fine", 5));
  const Outcome run = run_probes({&needy, &fine}, dir.path() / "run");
  EXPECT_EQ(needy.runs, 0);
  const std::vector<std::string> expected_start = {
      "run_started 2",
      "summary in_progress incomplete",
      "probe_started test.needy 1/2",
      "finding waived test.needy",
      "probe_finished test.needy waived (no widget on this node)",
      "summary in_progress incomplete",
      "probe_started test.fine 2/2",
  };
  ASSERT_GE(run.events.size(), expected_start.size());
  EXPECT_EQ(std::vector<std::string>(
                run.events.begin(),
                run.events.begin() + static_cast<std::ptrdiff_t>(expected_start.size())),
            expected_start)
      << joined(run.events);
  EXPECT_EQ(run.events.back(), "run_finished pass 0 ");
  EXPECT_EQ(run.summary["probes"]["waived"][0]["reason"], "no widget on this node");
}

// SIGTERM while the second of three probes runs: the signal thread sends the last events (the
// final summary, run_finished incomplete) and the process exits 3; the third probe never starts.
// In a child process (the interrupt ends the process), which prints what its reporter heard.
void run_until_interrupted() {
  install_interrupt_handling();
  auto dir = std::make_shared<testing::TempDir>();
  // Runs after the runner's last words (cleanups run newest first), before the process exits.
  register_cleanup([dir] { std::filesystem::remove_all(dir->path()); });
  ScriptedProbe first("test.first", emits("test.first", 5));
  ScriptedProbe interrupted("test.interrupted", [](MeasurementSink& sink) {
    emits("test.interrupted", 5)(sink);
    ::kill(::getpid(), SIGTERM);  // to the process: the signal thread takes it
    std::this_thread::sleep_for(std::chrono::seconds(20));
  });
  ScriptedProbe never("test.never", emits("test.never", 5));
  std::vector<std::string> events;
  Runner runner(
      recorded_request({&first, &interrupted, &never}, dir->path() / "run", events, true));
  auto world = make_single_world();
  runner.execute(*world);
  std::fprintf(stderr, "the run was not interrupted\n");
  std::exit(0);
}

TEST(RunnerEvents, AnInterruptEndsTheRunWithAnIncompleteRunFinished) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_until_interrupted(), ::testing::ExitedWithCode(3),
              "EVENTS: run_started 3;.*probe_finished test.first ran;summary in_progress "
              "incomplete;probe_started test.interrupted 2/3;progress test.interrupted value;"
              "summary final incomplete;run_finished incomplete 3 interrupted by SIGTERM "
              "last_words;END");
}

}  // namespace
}  // namespace fabcheck
