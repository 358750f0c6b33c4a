// The fail_streak policy against hand-counted histories, and the outcome log it reads: created
// once, appended once a run, never written through a link or into a folder others can write.
#include "results/fail_streak.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/sys/config_error.hpp"
#include "results/node_verdicts.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

NodeOutcome outcome(const std::string& run, const std::string& host, const std::string& what) {
  return {"2026-12-02T00:00:00Z", run, host, what, what == "fail", what == "fail" ? "x-slow" : ""};
}

TEST(FailStreak, ParsesInARowAndOfTheLast) {
  ASSERT_TRUE(parse_fail_streak("3"));
  EXPECT_EQ(parse_fail_streak("3")->fails, 3u);
  EXPECT_EQ(parse_fail_streak("3")->window, 0u);
  EXPECT_EQ(parse_fail_streak("2/5")->fails, 2u);
  EXPECT_EQ(parse_fail_streak("2/5")->window, 5u);
  EXPECT_TRUE(parse_fail_streak("1000/1000"));
  for (const char* bad : {"", "0", "-1", " 3", "3 ", "3/", "/3", "3/2", "1001", "2/1001", "a",
                          "2/x", "2//3", "0x3", "3.0"})
    EXPECT_FALSE(parse_fail_streak(bad)) << bad;
  EXPECT_EQ(describe({3, 0}), "3 runs in a row");
  EXPECT_EQ(describe({1, 0}), "1 run in a row");
  EXPECT_EQ(describe({2, 5}), "2 of the last 5 runs");
}

TEST(FailStreak, CountsFailsInARowSkippingHoldsAndOtherHosts) {
  // a: pass fail hold fail fail (b's runs between): 3 in a row (the hold judges nothing).
  const std::vector<NodeOutcome> log = {outcome("r1", "a", "pass"), outcome("r2", "a", "fail"),
                                        outcome("r2", "b", "pass"), outcome("r3", "a", "hold"),
                                        outcome("r4", "b", "fail"), outcome("r4", "a", "fail"),
                                        outcome("r5", "a", "fail")};
  EXPECT_EQ(failing_runs(log, "a", {3, 0}), 3u);
  EXPECT_EQ(failing_runs(log, "b", {3, 0}), 1u);
  EXPECT_EQ(failing_runs(log, "c", {3, 0}), 0u);
  // Of a's last 2 judged runs (r5, r4): 2; of its last 4 (r5, r4, r2, r1): 3.
  EXPECT_EQ(failing_runs(log, "a", {2, 2}), 2u);
  EXPECT_EQ(failing_runs(log, "a", {2, 4}), 3u);
  std::vector<NodeOutcome> passed = log;
  passed.push_back(outcome("r6", "a", "pass"));
  EXPECT_EQ(failing_runs(passed, "a", {3, 0}), 0u);  // a pass ends the run of failures
  EXPECT_EQ(failing_runs(passed, "a", {2, 3}), 2u);  // r6 pass, r5 fail, r4 fail
  EXPECT_EQ(failing_runs(passed, "a", {2, 1}), 0u);
}

TEST(FailStreak, ALineRoundTripsAndAnythingElseIsRefused) {
  const NodeOutcome one = outcome("20261202T000000Z-job7", "gpu01", "fail");
  std::string why;
  const auto back = parse_outcome_line(outcome_line(one), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(*back, one);
  EXPECT_EQ(outcome_line(one).find('\n'), std::string::npos);
  for (
      const char* bad :
      {"", "{", "[]", R"({"kind":"summary"})",
       R"({"kind":"node-outcome","utc":"","run":"r","host":"h","outcome":"maybe","noisy":false,"code":""})",
       R"({"kind":"node-outcome","utc":"","run":"r","host":"h","outcome":"fail","noisy":1,"code":""})",
       R"({"kind":"node-outcome","utc":"","run":"r","host":7,"outcome":"fail","noisy":true,"code":""})"}) {
    why.clear();
    EXPECT_FALSE(parse_outcome_line(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

class OutcomeLog : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "fabcheck-outcomes-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutcomeLog, CreatedOnceAppendedOnceARunAndReadBackInOrder) {
  const fs::path file = dir_ / "outcomes.jsonl";
  auto log = append_outcomes(file, {outcome("r1", "a", "fail"), outcome("r1", "b", "pass")});
  EXPECT_EQ(log.size(), 2u);
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
  log = append_outcomes(file, {outcome("r1", "a", "fail")});  // r1 again: not appended
  EXPECT_EQ(log.size(), 2u);
  log = append_outcomes(file, {outcome("r2", "a", "fail")});
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log.back().run, "r2");
  EXPECT_EQ(failing_runs(log, "a", {2, 0}), 2u);
}

TEST_F(OutcomeLog, OnlyTheTailIsReadAndItsFirstPartLineSkipped) {
  const fs::path file = dir_ / "outcomes.jsonl";
  for (int run = 0; run < 50; ++run)
    append_outcomes(file, {outcome("r" + std::to_string(run), "a", "fail")});
  const auto log = append_outcomes(file, {outcome("r50", "a", "pass")}, 1000);
  ASSERT_FALSE(log.empty());
  EXPECT_LT(log.size(), 51u);
  EXPECT_EQ(log.back().run, "r50");
}

TEST_F(OutcomeLog, ALinkAFileOthersCanWriteAndAnOpenFolderAreRefused) {
  fs::create_symlink("/etc/hostname", dir_ / "link.jsonl");
  EXPECT_ANY_THROW(append_outcomes(dir_ / "link.jsonl", {outcome("r1", "a", "fail")}));
  { std::ofstream(dir_ / "open.jsonl") << ""; }
  fs::permissions(dir_ / "open.jsonl", fs::perms(0666));
  EXPECT_THROW(append_outcomes(dir_ / "open.jsonl", {outcome("r1", "a", "fail")}), ConfigError);
  EXPECT_EQ(fs::file_size(dir_ / "open.jsonl"), 0u);
  fs::create_directory(dir_ / "shared");
  fs::permissions(dir_ / "shared", fs::perms(0777));
  EXPECT_THROW(append_outcomes(dir_ / "shared" / "o.jsonl", {outcome("r1", "a", "fail")}),
               ConfigError);
  EXPECT_FALSE(fs::exists(dir_ / "shared" / "o.jsonl"));
}

TEST_F(OutcomeLog, ALineThatIsNotAnOutcomeIsNamedByFileAndLine) {
  const fs::path file = dir_ / "outcomes.jsonl";
  append_outcomes(file, {outcome("r1", "a", "fail")});
  { std::ofstream(file, std::ios::app) << "{\"kind\":\"node-outc\n"; }  // a torn line
  try {
    append_outcomes(file, {outcome("r2", "a", "fail")});
    FAIL() << "a torn line was read as an outcome";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find(file.string() + ":2: "), std::string::npos)
        << error.what();
  }
}

TEST(NodeActionKind, ADrainIsNoisyOnlyWhenEveryFailNamingTheNodeIs) {
  const RepairTable table = {
      {"coll.all_reduce", {{"", "collective-slow", "inspect", FailKind::noisy_figure}}},
      {"fabric.pcie_links", {{"", "pcie-link-degraded", "reseat"}}}};
  const auto fail = [](const std::string& probe) {
    Finding finding;
    finding.severity = Severity::fail;
    finding.probe = probe;
    finding.metric = "busbw";
    finding.host = "n1";
    finding.message = probe + " failed";
    return finding;
  };
  std::vector<Finding> noisy = {fail("coll.all_reduce"), fail("coll.all_reduce")};
  auto actions = node_actions(node_verdicts(noisy, {"n1"}, false), noisy, "", table);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, FailKind::noisy_figure);
  EXPECT_EQ(node_action_json(actions[0])["noisy"], true);
  std::vector<Finding> mixed = {fail("coll.all_reduce"), fail("fabric.pcie_links")};
  actions = node_actions(node_verdicts(mixed, {"n1"}, false), mixed, "", table);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, FailKind::fact);  // the noisy one first, the fact decides
  EXPECT_EQ(actions[0].code, "collective-slow");
  std::vector<Finding> unknown = {fail("gpu.other")};  // no rule: a fact (fails closed)
  actions = node_actions(node_verdicts(unknown, {"n1"}, false), unknown, "", table);
  EXPECT_EQ(actions[0].kind, FailKind::fact);
}

}  // namespace
}  // namespace fabcheck
