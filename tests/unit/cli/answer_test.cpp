// `fabcheck answer` on summaries whose fields have the wrong types: incomplete (exit 3) with
// "FILE: what" on stderr, never an abort; checked on the case the issue names (exit_code a string)
// and on every field of a summary replaced by every other JSON type.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cli/commands.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

class Answer : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "fabcheck-answer-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  int answer(const nlohmann::json& summary, const std::string& outcomes = "",
             const std::string& fail_streak = "1") {
    std::ofstream(dir_ / "summary.json") << summary.dump();
    return answer_command({dir_.string(), outcomes, fail_streak});
  }

  // A run of its own folder (outcomes are kept by run name): `node07` failing a noisy figure or a
  // fact, `node08` passing. Returns the answer's code; `out` its lines.
  int answer_run(const std::string& name, bool node07_fails, bool noisy, const std::string& streak,
                 std::string& out) {
    const fs::path run = dir_ / name;
    fs::create_directory(run);
    nlohmann::json summary = {{"kind", "summary"},
                              {"exit_code", node07_fails ? 1 : 0},
                              {"finished_utc", "2026-12-02T00:00:00Z"},
                              {"nodes",
                               {{{"host", "node07"}, {"verdict", node07_fails ? "fail" : "pass"}},
                                {{"host", "node08"}, {"verdict", "pass"}}}},
                              {"drain", nlohmann::json::array()},
                              {"hold", nlohmann::json::array()}};
    if (node07_fails) {
      summary["drain"].push_back({{"host", "node07"},
                                  {"reason", "fabcheck: busbw 3 GB/s"},
                                  {"code", noisy ? "collective-slow" : "pcie-link-degraded"},
                                  {"repair", noisy ? "inspect" : "reseat"},
                                  {"noisy", noisy}});
    }
    std::ofstream(run / "summary.json") << summary.dump();
    ::testing::internal::CaptureStdout();
    const int code = answer_command({run.string(), (dir_ / "outcomes.jsonl").string(), streak});
    out = ::testing::internal::GetCapturedStdout();
    return code;
  }

  static nlohmann::json failing_summary() {
    return {{"schema_version", 1},
            {"kind", "summary"},
            {"verdict", "fail"},
            {"exit_code", 1},
            {"finished_utc", "2026-12-02T00:00:00Z"},
            {"drain",
             {{{"host", "node07"},
               {"reason", "fabcheck: Xid 79"},
               {"code", "gpu-xid"},
               {"repair", "reboot"}}}},
            {"hold", {{{"host", "node08"}, {"reason", "fabcheck: incomplete"}}}},
            {"across_nodes", {{{"hosts", "node07,node08"}, {"message", "slow"}}}}};
  }

  fs::path dir_;
};

TEST_F(Answer, ASummaryAsWrittenIsAnswered) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(answer(failing_summary()), 1);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out,
            "drain\tnode07\tfabcheck: Xid 79\tgpu-xid\treboot\n"
            "hold\tnode08\tfabcheck: incomplete\t\t\n"  // written before codes: empty, 5 fields
            "across\tnode07,node08\tfabcheck: slow\n");
}

TEST_F(Answer, ACodeThatIsNotAStringIsIncomplete) {
  nlohmann::json summary = failing_summary();
  summary["drain"][0]["repair"] = 3;
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(answer(summary), 3);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_NE(err.find("has a \"repair\" that is not a string"), std::string::npos) << err;
}

TEST_F(Answer, AnExitCodeThatIsAStringIsIncompleteNamingTheFile) {
  nlohmann::json summary = failing_summary();
  summary["exit_code"] = "0";
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(answer(summary), 3);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find((dir_ / "summary.json").string() + ": \"exit_code\" is not an integer"),
            std::string::npos)
      << err;
  EXPECT_EQ(out, "");  // no half answer a script could act on
}

TEST_F(Answer, ANoisyFigureDrainsOnlyAfterItsStreakAndAPassEndsTheStreak) {
  std::string out;
  EXPECT_EQ(answer_run("r1", true, true, "2", out), 0);  // the first failing run: watched
  EXPECT_EQ(out,
            "watch\tnode07\tfabcheck: busbw 3 GB/s\tcollective-slow\tinspect\tnoisy figure: 1 "
            "failing run; a drain needs 2 runs in a row\n");
  EXPECT_EQ(answer_run("r1", true, true, "2", out), 0);  // the same run answered again: still 1
  EXPECT_EQ(out.rfind("watch\t", 0), 0u) << out;
  EXPECT_EQ(answer_run("r2", true, true, "2", out), 1);  // the second in a row: drained
  EXPECT_EQ(out, "drain\tnode07\tfabcheck: busbw 3 GB/s\tcollective-slow\tinspect\n");
  EXPECT_EQ(answer_run("r3", false, true, "2", out), 0);  // a pass ends the streak
  EXPECT_EQ(out, "");
  EXPECT_EQ(answer_run("r4", true, true, "2", out), 0);
  EXPECT_EQ(out.rfind("watch\t", 0), 0u) << out;
  // 3 of the last 4 (r2..r5): r2, r4 and r5 failed, r3 passed.
  EXPECT_EQ(answer_run("r5", true, true, "3/4", out), 1);
  EXPECT_EQ(out.rfind("drain\t", 0), 0u) << out;
  // Every node's outcome, once a run: 5 runs (r1 answered twice), 2 nodes.
  std::ifstream log(dir_ / "outcomes.jsonl");
  int lines = 0;
  for (std::string line; std::getline(log, line);) ++lines;
  EXPECT_EQ(lines, 10);
}

TEST_F(Answer, AFactDrainsAtTheFirstFailWhateverTheStreak) {
  std::string out;
  EXPECT_EQ(answer_run("r1", true, false, "5", out), 1);
  EXPECT_EQ(out, "drain\tnode07\tfabcheck: busbw 3 GB/s\tpcie-link-degraded\treseat\n");
}

TEST_F(Answer, AnOutcomeLogThatCannotBeUsedDrainsEveryFail) {
  fs::create_symlink("/etc/passwd", dir_ / "outcomes.jsonl");  // never written through
  std::string out;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(answer_run("r1", true, true, "3", out), 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "drain\tnode07\tfabcheck: busbw 3 GB/s\tcollective-slow\tinspect\n");
  EXPECT_NE(err.find("the fail streak is not applied (every FAIL drains)"), std::string::npos)
      << err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "outcomes.jsonl"));
}

TEST_F(Answer, ABadFailStreakOrOneWithoutALogIsRefused) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(answer(failing_summary(), "", "2"), 2);  // no log to count runs in
  EXPECT_EQ(answer(failing_summary(), (dir_ / "o").string(), "3/2"), 2);
  EXPECT_EQ(answer(failing_summary(), (dir_ / "o").string(), "0"), 2);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("--fail-streak 2 needs --outcomes FILE"), std::string::npos) << err;
  EXPECT_NE(err.find("--fail-streak 3/2: expected N"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

// Every value of the summary (nested ones too) replaced, one at a time, by each other JSON type:
// the answer is 0, 1 or 3, never an abort; a wrongly typed field the answer reads is 3.
void mutations(const nlohmann::json& node, const nlohmann::json::json_pointer& at,
               std::vector<nlohmann::json::json_pointer>& out) {
  out.push_back(at);
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) mutations(value, at / key, out);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) mutations(node[i], at / i, out);
  }
}

TEST_F(Answer, EveryFieldOfEveryTypeIsAnsweredWithoutAbort) {
  const nlohmann::json original = failing_summary();
  std::vector<nlohmann::json::json_pointer> paths;
  mutations(original, nlohmann::json::json_pointer(), paths);
  const std::vector<nlohmann::json> replacements = {nullptr,
                                                    true,
                                                    -1,
                                                    18446744073709551615u,
                                                    1e308,
                                                    "x",
                                                    nlohmann::json::array({1, "a"}),
                                                    nlohmann::json::object({{"host", 1}})};
  int answered = 0;
  for (const auto& path : paths) {
    if (path.empty()) continue;
    for (const auto& replacement : replacements) {
      nlohmann::json mutated = original;
      mutated[path] = replacement;
      ::testing::internal::CaptureStdout();
      ::testing::internal::CaptureStderr();
      int code = -1;
      EXPECT_NO_THROW(code = answer(mutated, (dir_ / "outcomes.jsonl").string(), "2"))
          << path.to_string() << " = " << replacement.dump();
      ::testing::internal::GetCapturedStdout();
      ::testing::internal::GetCapturedStderr();
      EXPECT_TRUE(code == 0 || code == 1 || code == 3)
          << path.to_string() << " = " << replacement.dump() << ": " << code;
      const std::string top = path.to_string().substr(1, path.to_string().find('/', 1) - 1);
      if (top == "exit_code" && !replacement.is_number_integer()) {
        EXPECT_EQ(code, 3) << replacement.dump();
      }
      ++answered;
    }
  }
  EXPECT_GT(answered, 100);
}

}  // namespace
}  // namespace fabcheck
