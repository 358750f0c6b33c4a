// The runner's final answer when nothing was judged: summary, verdict line and exit code agree.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "bench/core/console_reporter.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "results/profile.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

// Emits one figure, 5 count.
class OneFigureProbe final : public Probe {
 public:
  OneFigureProbe()
      : Probe({.id = "test.figure",
               .description = "test",
               .metrics = {{"value", {"count", Better::higher}}}}) {}
  void run(RunContext&, MeasurementSink& sink) override {
    Measurement m;
    m.probe = "test.figure";
    m.metric = "value";
    m.unit = "count";
    m.value = 5;
    sink.emit(m);
  }
};

struct Answer {
  int code = -1;
  nlohmann::json summary;
  std::string console;
};

// `required`: the plan's required probes; `other_pass`: a judge PASSes something else too.
Answer run_with_profile(const std::string& profile_text, const std::filesystem::path& out,
                        std::vector<std::string> required = {}, bool other_pass = false) {
  OneFigureProbe probe;
  MetricCatalog catalog;
  catalog["test.figure"]["value"] = {"count", Better::higher};
  RunRequest request;
  request.probes.push_back(&probe);
  request.profile = parse_profile(profile_text, "test.toml", catalog);
  request.out_dir = out;
  request.versions = nlohmann::json::object();
  request.plan_name = "gate";
  request.required_probes = std::move(required);
  if (other_pass) {
    Judge judge;
    judge.name = "other";
    judge.scope = JudgeScope::whole_run;
    judge.judge = [](const std::vector<Measurement>&, const Profile&) {
      Finding pass;
      pass.probe = "test.other";
      pass.message = "something else passed";
      return std::vector<Finding>{pass};
    };
    request.judges.push_back(judge);
  }
  std::FILE* console = std::tmpfile();
  request.reporters.push_back(make_console_reporter({.out = console, .err = console}));
  Answer answer;
  {
    Runner runner(std::move(request));
    auto world = make_single_world();
    answer.code = runner.execute(*world);
  }
  std::rewind(console);
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, console)) > 0) answer.console.append(buffer, n);
  std::fclose(console);
  std::ifstream in(out / "summary.json");
  answer.summary = nlohmann::json::parse(in);
  return answer;
}

// Issue 15: an empty profile judged nothing and said PASS (exit 0).
TEST(RunnerVerdict, ARunThatJudgedNothingIsNotAPass) {
  testing::TempDir dir;
  const Answer answer = run_with_profile("[profile]\nname = \"empty\"\n", dir.path() / "run");
  EXPECT_EQ(answer.code, 3) << answer.console;
  EXPECT_EQ(answer.summary["exit_code"], 3);
  EXPECT_EQ(answer.summary["verdict"], "incomplete");
  const std::string reason = answer.summary.value("incomplete_reason", "");
  EXPECT_NE(reason.find("nothing was judged"), std::string::npos) << answer.summary.dump(1);
  EXPECT_EQ(answer.console.find("PASS"), std::string::npos) << answer.console;
  EXPECT_NE(answer.console.find("nothing was judged"), std::string::npos) << answer.console;
}

TEST(RunnerVerdict, AJudgedFigurePasses) {
  testing::TempDir dir;
  const Answer answer = run_with_profile(
      "[profile]\nname = \"one\"\n[[expect]]\nprobe = \"test.figure\"\nmetric = \"value\"\n"
      "unit = \"count\"\npass = 4\nwarn = 3\nsource = \"test\"\n",
      dir.path() / "run");
  EXPECT_EQ(answer.code, 0) << answer.console;
  EXPECT_EQ(answer.summary["verdict"], "pass");
}

const char* kOneExpectation =
    "[profile]\nname = \"one\"\n[[expect]]\nprobe = \"test.figure\"\nmetric = \"value\"\n"
    "unit = \"count\"\npass = 4\nwarn = 3\nsource = \"test\"\n";

// Issue 21: a gate whose required probe judged nothing (its figures matched no expectation, as
// after --budget cut its sizes) is not a pass: an ERROR naming it, exit 3, even beside a PASS.
TEST(RunnerVerdict, ARequiredProbeThatJudgedNothingIsIncomplete) {
  testing::TempDir dir;
  const Answer judged = run_with_profile(kOneExpectation, dir.path() / "judged", {"test.figure"});
  EXPECT_EQ(judged.code, 0) << judged.console;
  const char* empty = "[profile]\nname = \"empty\"\n";
  const Answer unrequired = run_with_profile(empty, dir.path() / "unrequired", {}, true);
  EXPECT_EQ(unrequired.code, 0) << unrequired.console;  // what main said of such a gate
  const Answer answer = run_with_profile(empty, dir.path() / "run", {"test.figure"}, true);
  EXPECT_EQ(answer.code, 3) << answer.console;
  EXPECT_NE(answer.console.find("plan gate requires test.figure's figures and it judged none"),
            std::string::npos)
      << answer.console;
}

// Issue 14: the measured wall time and its split are in summary.json and on the console.
TEST(RunnerVerdict, TheSummarySaysWhereTheTimeWent) {
  // ctest starts each test in a process of its own, and a process's age is counted in clock ticks
  // (10 ms): give it a few, so that start-up is measurably above zero (it was 0 under load).
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  testing::TempDir dir;
  const Answer answer = run_with_profile("[profile]\nname = \"empty\"\n", dir.path() / "run");
  const auto& timing = answer.summary.at("timing");
  ASSERT_EQ(timing.at("probes").size(), 1u);
  EXPECT_EQ(timing["probes"][0]["id"], "test.figure");
  const double probe_s = timing["probes"][0]["seconds"].get<double>();
  EXPECT_GE(probe_s, 0.0);
  EXPECT_DOUBLE_EQ(timing["probes_s"].get<double>(), probe_s);
  EXPECT_GT(timing["startup_s"].get<double>(), 0.0);  // this test process is not new
  EXPECT_GE(timing["wall_s"].get<double>(),
            timing["startup_s"].get<double>() + probe_s + timing["judgement_s"].get<double>());
  EXPECT_NE(answer.console.find("time: "), std::string::npos) << answer.console;
}

}  // namespace
}  // namespace fabcheck
