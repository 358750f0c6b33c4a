// The runner's whole event sequence for a run that meets everything at once: a probe that throws
// (its rank's problem, its ERROR), one waived (never run), and one interrupted by SIGINT (the
// signal thread's last words; the probe after it never starts). In a child process, which prints
// what its reporter heard when the interrupt ends it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/interrupt.hpp"
#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "tests/doubles/runner_doubles.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

using testing::emits;
using testing::recorded_request;
using testing::RecordingReporter;
using testing::ScriptedProbe;
using testing::test_profile;

// `text` matched literally by the death test's regular expression.
std::string literally(const std::string& text) {
  std::string pattern;
  for (const char c : text) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) pattern += '\\';
    pattern += c;
  }
  return pattern;
}

void run_a_throw_a_waiver_and_an_interrupt() {
  install_interrupt_handling();
  auto dir = std::make_shared<testing::TempDir>();
  // Runs after the runner's last words (cleanups run newest first), before the process exits.
  register_cleanup([dir] { std::filesystem::remove_all(dir->path()); });
  ScriptedProbe broken("test.broken",
                       [](MeasurementSink&) { throw std::runtime_error("the widget fell off"); });
  ScriptedProbe needy("test.needy", emits("test.needy", 5),
                      {{.name = "a widget", .unmet = [](const World&, const RunOptions&) {
                          return std::string("no widget on this node");
                        }}});
  ScriptedProbe interrupted("test.interrupted", [](MeasurementSink& sink) {
    emits("test.interrupted", 5)(sink);
    ::kill(::getpid(), SIGINT);  // to the process: the signal thread takes it
    std::this_thread::sleep_for(std::chrono::seconds(20));
  });
  ScriptedProbe never("test.never", emits("test.never", 5));
  std::vector<std::string> events;
  Runner runner(
      recorded_request({&broken, &needy, &interrupted, &never}, dir->path() / "run", events, true));
  auto world = make_single_world();
  runner.execute(*world);
  std::fprintf(stderr, "the run was not interrupted\n");
  std::exit(0);
}

TEST(RunnerEventOrder, AThrowAWaiverAndAnInterruptInOneRun) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<std::string> expected = {
      "run_started 4",
      "summary in_progress incomplete",
      "probe_started test.broken 1/4",
      "progress test.broken error",
      "problem probe_failed rank 0 (" + local_hostname() + "): test.broken: the widget fell off",
      "measurements test.broken 1",
      "finding error test.broken",
      "probe_finished test.broken errored (the widget fell off)",
      "summary in_progress incomplete",
      "probe_started test.needy 2/4",
      "finding waived test.needy",
      "probe_finished test.needy waived (no widget on this node)",
      "summary in_progress incomplete",
      "probe_started test.interrupted 3/4",
      "progress test.interrupted value",
      "summary final incomplete",
      "run_finished incomplete 3 interrupted by SIGINT last_words",
  };
  std::string printed = "EVENTS: ";
  for (const auto& event : expected) printed += event + ";";
  printed += "END";
  EXPECT_EXIT(run_a_throw_a_waiver_and_an_interrupt(), ::testing::ExitedWithCode(3),
              literally(printed));
}

}  // namespace
}  // namespace fabcheck
