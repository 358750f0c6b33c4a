// Tests of the run verdict, its exit code and the per-severity counts.
#include "results/verdict.hpp"
#include "results/measurement.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

std::vector<Finding> findings_of(std::initializer_list<Severity> severities) {
  std::vector<Finding> findings;
  for (Severity severity : severities) {
    Finding finding;
    finding.severity = severity;
    findings.push_back(finding);
  }
  return findings;
}

TEST(Verdict, OnlyPassAndWaivedPasses) {
  EXPECT_EQ(verdict_of(findings_of({Severity::pass, Severity::waived})), Verdict::pass);
  EXPECT_EQ(verdict_of(findings_of({Severity::pass})), Verdict::pass);
}

// What the runner uses to refuse a pass to a run that judged nothing (no finding, or only WAIVED).
TEST(Verdict, JudgedAnythingNeedsAFindingThatIsNotWaived) {
  EXPECT_FALSE(judged_anything({}));
  EXPECT_FALSE(judged_anything(findings_of({Severity::waived, Severity::waived})));
  EXPECT_TRUE(judged_anything(findings_of({Severity::waived, Severity::warn})));
  EXPECT_TRUE(judged_anything(findings_of({Severity::pass})));
}

TEST(Verdict, WarnFailIncompleteInOrderOfPrecedence) {
  EXPECT_EQ(verdict_of(findings_of({Severity::pass, Severity::warn})), Verdict::warn);
  EXPECT_EQ(verdict_of(findings_of({Severity::warn, Severity::error})), Verdict::incomplete);
  EXPECT_EQ(verdict_of(findings_of({Severity::error, Severity::fail})), Verdict::fail);
  EXPECT_EQ(verdict_of(findings_of({Severity::fail, Severity::warn})), Verdict::fail);
}

TEST(Verdict, IncompleteFlagOverridesPassAndWarnButNotFail) {
  EXPECT_EQ(verdict_of({}, true), Verdict::incomplete);
  EXPECT_EQ(verdict_of(findings_of({Severity::warn}), true), Verdict::incomplete);
  EXPECT_EQ(verdict_of(findings_of({Severity::fail}), true), Verdict::fail);
}

TEST(Verdict, ExitCodes) {
  EXPECT_EQ(exit_code_of(Verdict::pass), 0);
  EXPECT_EQ(exit_code_of(Verdict::warn), 0);
  EXPECT_EQ(exit_code_of(Verdict::fail), 1);
  EXPECT_EQ(exit_code_of(Verdict::incomplete), 3);
}

TEST(Verdict, Names) {
  EXPECT_STREQ(to_string(Verdict::pass), "pass");
  EXPECT_STREQ(to_string(Verdict::warn), "warn");
  EXPECT_STREQ(to_string(Verdict::fail), "fail");
  EXPECT_STREQ(to_string(Verdict::incomplete), "incomplete");
}

TEST(Verdict, CountsEverySeverityIncludingZeros) {
  const auto counts = count_by_severity(
      findings_of({Severity::pass, Severity::pass, Severity::fail, Severity::waived}));
  EXPECT_EQ(counts.size(), 5u);
  EXPECT_EQ(counts.at(Severity::pass), 2);
  EXPECT_EQ(counts.at(Severity::warn), 0);
  EXPECT_EQ(counts.at(Severity::fail), 1);
  EXPECT_EQ(counts.at(Severity::waived), 1);
  EXPECT_EQ(counts.at(Severity::error), 0);
}

TEST(SeverityNames, RoundTripAndRejectUnknown) {
  for (Severity s :
       {Severity::pass, Severity::warn, Severity::fail, Severity::waived, Severity::error}) {
    EXPECT_EQ(severity_from_string(to_string(s)), s);
  }
  EXPECT_STREQ(to_string(Severity::waived), "waived");
  EXPECT_EQ(severity_from_string("PASS"), std::nullopt);
  EXPECT_EQ(severity_from_string(""), std::nullopt);
}

TEST(MeasurementStatusNames, RoundTripAndRejectUnknown) {
  EXPECT_STREQ(to_string(MeasurementStatus::ok), "ok");
  EXPECT_STREQ(to_string(MeasurementStatus::error), "error");
  EXPECT_STREQ(to_string(MeasurementStatus::waived), "waived");
  EXPECT_EQ(measurement_status_from_string("ok"), MeasurementStatus::ok);
  EXPECT_EQ(measurement_status_from_string("error"), MeasurementStatus::error);
  EXPECT_EQ(measurement_status_from_string("waived"), MeasurementStatus::waived);
  EXPECT_EQ(measurement_status_from_string("skipped"), std::nullopt);
}

}  // namespace
}  // namespace fabcheck
