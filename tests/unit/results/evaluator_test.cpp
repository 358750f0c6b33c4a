// Tests of the evaluator: thresholds at and around each boundary in both directions, size ranges,
// waived and error measurements, and the wrong-elements rule.
#include "results/evaluator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabcheck {
namespace {

using ::testing::HasSubstr;

Expectation busbw_expectation() {
  Expectation e;
  e.probe = "coll.all_reduce";
  e.metric = "busbw";
  e.unit = "GB/s";
  e.better = Better::higher;
  e.min_size = 1048576;    // 1 MiB
  e.max_size = 268435456;  // 256 MiB
  e.pass = 1.0;
  e.warn = 0.5;
  e.source = "nccl-tests issue 212";
  e.remedy = "check the NICs";
  return e;
}

Expectation latency_expectation() {
  Expectation e;
  e.probe = "gpu.launch";
  e.metric = "latency";
  e.unit = "us";
  e.better = Better::lower;
  e.pass = 5;
  e.warn = 10;
  e.source = "measured";
  return e;
}

Profile profile_of(std::vector<Expectation> expectations) {
  Profile profile;
  profile.name = "test";
  profile.expectations = std::move(expectations);
  return profile;
}

Measurement busbw(double value, std::uint64_t size = 1048576) {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = value;
  m.unit = "GB/s";
  m.subject = "world";
  m.size_bytes = size;
  return m;
}

Measurement latency(double value) {
  Measurement m;
  m.probe = "gpu.launch";
  m.metric = "latency";
  m.value = value;
  m.unit = "us";
  m.host = "node-a";
  m.rank = 3;
  m.subject = "gpu3";
  return m;
}

Severity severity_of(const Measurement& m, const Profile& profile) {
  const std::vector<Finding> findings = evaluate_measurement(m, profile);
  EXPECT_EQ(findings.size(), 1u);
  return findings.empty() ? Severity::error : findings.front().severity;
}

TEST(EvaluateHigherIsBetter, BoundariesAndAround) {
  const Profile profile = profile_of({busbw_expectation()});
  EXPECT_EQ(severity_of(busbw(2.0), profile), Severity::pass);
  EXPECT_EQ(severity_of(busbw(1.0), profile), Severity::pass) << "exactly pass passes";
  EXPECT_EQ(severity_of(busbw(std::nextafter(1.0, 0.0)), profile), Severity::warn);
  EXPECT_EQ(severity_of(busbw(0.75), profile), Severity::warn);
  EXPECT_EQ(severity_of(busbw(0.5), profile), Severity::warn) << "exactly warn warns";
  EXPECT_EQ(severity_of(busbw(std::nextafter(0.5, 0.0)), profile), Severity::fail);
  EXPECT_EQ(severity_of(busbw(0.0), profile), Severity::fail);
}

TEST(EvaluateLowerIsBetter, BoundariesAndAround) {
  const Profile profile = profile_of({latency_expectation()});
  EXPECT_EQ(severity_of(latency(1.0), profile), Severity::pass);
  EXPECT_EQ(severity_of(latency(5.0), profile), Severity::pass) << "exactly pass passes";
  EXPECT_EQ(severity_of(latency(std::nextafter(5.0, 10.0)), profile), Severity::warn);
  EXPECT_EQ(severity_of(latency(10.0), profile), Severity::warn) << "exactly warn warns";
  EXPECT_EQ(severity_of(latency(std::nextafter(10.0, 11.0)), profile), Severity::fail);
  EXPECT_EQ(severity_of(latency(1000.0), profile), Severity::fail);
}

TEST(EvaluateMessages, WarnNamesTheFigureAndBothThresholds) {
  const Finding f = evaluate_measurement(busbw(0.5), profile_of({busbw_expectation()})).at(0);
  EXPECT_EQ(f.message,
            "coll.all_reduce busbw at 1MiB: 0.5 GB/s, expected >= 1 GB/s (WARN from 0.5)");
}

TEST(EvaluateMessages, ExampleFromTheDesign) {
  Expectation e = busbw_expectation();
  e.warn = 0.4;
  const Finding f = evaluate_measurement(busbw(0.42), profile_of({e})).at(0);
  EXPECT_EQ(f.severity, Severity::warn);
  EXPECT_EQ(f.message,
            "coll.all_reduce busbw at 1MiB: 0.42 GB/s, expected >= 1 GB/s (WARN from 0.4)");
}

TEST(EvaluateMessages, FailAndPassAndLowerIsBetter) {
  const Profile profile = profile_of({busbw_expectation(), latency_expectation()});
  EXPECT_EQ(evaluate_measurement(busbw(0.25, 4194304), profile).at(0).message,
            "coll.all_reduce busbw at 4MiB: 0.25 GB/s, expected >= 1 GB/s (FAIL below 0.5)");
  EXPECT_EQ(evaluate_measurement(busbw(480.5), profile).at(0).message,
            "coll.all_reduce busbw at 1MiB: 480.5 GB/s, expected >= 1 GB/s");
  EXPECT_EQ(evaluate_measurement(latency(7.25), profile).at(0).message,
            "gpu.launch latency on node-a gpu3: 7.25 us, expected <= 5 us (WARN up to 10)");
  EXPECT_EQ(evaluate_measurement(latency(12345.6), profile).at(0).message,
            "gpu.launch latency on node-a gpu3: 12346 us, expected <= 5 us (FAIL above 10)");
}

TEST(EvaluateFinding, CopiesTheMeasurementAndTheExpectation) {
  Measurement m = latency(12.0);
  m.stats = SampleStats{20, 11.0, 12.0, 30.0, 29.5, 12.5, 0.125};
  m.params = {{"placement", "device"}};
  const Finding f = evaluate_measurement(m, profile_of({latency_expectation()})).at(0);
  EXPECT_EQ(f.severity, Severity::fail);
  EXPECT_EQ(f.probe, "gpu.launch");
  EXPECT_EQ(f.metric, "latency");
  EXPECT_EQ(f.subject, "gpu3");
  EXPECT_EQ(f.host, "node-a");
  EXPECT_EQ(f.rank, 3);
  EXPECT_FALSE(f.size_bytes.has_value());
  EXPECT_EQ(f.observed, 12.0);
  EXPECT_EQ(f.expected, 5.0);
  EXPECT_EQ(f.warn_at, 10.0);
  EXPECT_EQ(f.unit, "us");
  EXPECT_EQ(f.source, "measured");
  EXPECT_EQ(f.evidence,
            "observed 12 us; 20 samples: median 12, p99 29.5, cv 12.5%; placement=device");
  EXPECT_THAT(f.remedy, HasSubstr("drain the node")) << "default remedy for a FAIL";
}

TEST(EvaluateFinding, RemedyComesFromTheExpectationWhenGiven) {
  const Profile profile = profile_of({busbw_expectation()});
  EXPECT_EQ(evaluate_measurement(busbw(0.1), profile).at(0).remedy, "check the NICs");
  EXPECT_EQ(evaluate_measurement(busbw(0.7), profile).at(0).remedy, "check the NICs");
  EXPECT_EQ(evaluate_measurement(busbw(5), profile).at(0).remedy, "") << "nothing to do on PASS";
  EXPECT_EQ(evaluate_measurement(busbw(5), profile).at(0).size_bytes, 1048576u);
}

TEST(EvaluateSizes, InclusiveRangeAndMissingSize) {
  const Profile profile = profile_of({busbw_expectation()});
  EXPECT_EQ(evaluate_measurement(busbw(0.1, 1048575), profile).size(), 0u) << "below min";
  EXPECT_EQ(evaluate_measurement(busbw(0.1, 1048576), profile).size(), 1u) << "min itself";
  EXPECT_EQ(evaluate_measurement(busbw(0.1, 268435456), profile).size(), 1u) << "max itself";
  EXPECT_EQ(evaluate_measurement(busbw(0.1, 268435457), profile).size(), 0u) << "above max";
  Measurement unsized = busbw(0.1);
  unsized.size_bytes.reset();
  EXPECT_EQ(evaluate_measurement(unsized, profile).size(), 0u)
      << "a size range does not cover a measurement without size";

  Expectation any_size = busbw_expectation();
  any_size.min_size.reset();
  any_size.max_size.reset();
  EXPECT_EQ(evaluate_measurement(unsized, profile_of({any_size})).size(), 1u);
  EXPECT_EQ(evaluate_measurement(busbw(0.1, 8), profile_of({any_size})).size(), 1u);
}

TEST(EvaluateSizes, EveryMatchingExpectationJudges) {
  Expectation strict = busbw_expectation();
  strict.pass = 10;
  strict.warn = 5;
  strict.min_size = strict.max_size = 1048576;
  const std::vector<Finding> findings =
      evaluate_measurement(busbw(2.0), profile_of({busbw_expectation(), strict}));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_EQ(findings[1].severity, Severity::fail);
}

TEST(EvaluateUncovered, OtherProbeOrMetricYieldsNothing) {
  const Profile profile = profile_of({busbw_expectation()});
  Measurement algbw = busbw(0.1);
  algbw.metric = "algbw";
  EXPECT_TRUE(evaluate_measurement(algbw, profile).empty());
  Measurement other = busbw(0.1);
  other.probe = "coll.all_gather";
  EXPECT_TRUE(evaluate_measurement(other, profile).empty());
}

TEST(EvaluateStatus, WaivedAndErrorCarryTheirMessage) {
  const Profile profile = profile_of({busbw_expectation()});
  Measurement waived = busbw(0);
  waived.status = MeasurementStatus::waived;
  waived.message = "no CUDA device";
  waived.size_bytes.reset();
  const std::vector<Finding> w = evaluate_measurement(waived, profile);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].severity, Severity::waived);
  EXPECT_EQ(w[0].message, "coll.all_reduce waived: no CUDA device");
  EXPECT_FALSE(w[0].observed.has_value());

  Measurement error = latency(0);
  error.status = MeasurementStatus::error;
  error.message = "cudaErrorLaunchFailure";
  const std::vector<Finding> e = evaluate_measurement(error, profile);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].severity, Severity::error);
  EXPECT_EQ(e[0].message, "gpu.launch on node-a gpu3 error: cudaErrorLaunchFailure");
  EXPECT_EQ(e[0].host, "node-a");
  EXPECT_EQ(e[0].rank, 3);
  EXPECT_FALSE(e[0].remedy.empty());
}

TEST(EvaluateStatus, NonFiniteValueIsAnError) {
  const Profile profile = profile_of({busbw_expectation()});
  const Finding f =
      evaluate_measurement(busbw(std::numeric_limits<double>::quiet_NaN()), profile).at(0);
  EXPECT_EQ(f.severity, Severity::error);
  EXPECT_EQ(f.message, "coll.all_reduce busbw at 1MiB: the measured value is not a finite number");
}

Measurement wrong_elements(double count) {
  Measurement m = busbw(count);
  m.metric = "wrong_elements";
  m.unit = "count";
  return m;
}

TEST(EvaluateWrongElements, AboveZeroFailsWithoutAProfileAndNamesTheRank) {
  Measurement m = wrong_elements(12);
  m.by_rank = {{0, "node-a", 0}, {1, "node-b", 12}};
  const std::vector<Finding> findings = evaluate_measurement(m, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].message,
            "coll.all_reduce at 1MiB: 12 wrong elements (rank 1 (node-b): 12)");
  EXPECT_EQ(findings[0].observed, 12.0);
  EXPECT_EQ(findings[0].expected, 0.0);
  EXPECT_THAT(findings[0].remedy, HasSubstr("Data corruption"));
}

TEST(EvaluateWrongElements, SeveralRanksAndNoBreakdown) {
  Measurement m = wrong_elements(7);
  m.by_rank = {{0, "a", 3}, {1, "a", 0}, {2, "b", 0}, {3, "b", 4}};
  EXPECT_EQ(evaluate_measurement(m, Profile{}).at(0).message,
            "coll.all_reduce at 1MiB: 7 wrong elements (rank 0 (a): 3, rank 3 (b): 4)");
  Measurement plain = wrong_elements(1);
  plain.size_bytes.reset();
  EXPECT_EQ(evaluate_measurement(plain, Profile{}).at(0).message,
            "coll.all_reduce: 1 wrong elements");
}

// A library known to give these wrong (the backend's known_fault): said first, still a FAIL.
TEST(EvaluateWrongElements, AKnownLibraryFaultComesFirstInTheRemedy) {
  Measurement m = wrong_elements(36);
  m.params["known_fault"] = "Open MPI's op/avx component sums 8-bit integers with saturation.";
  const std::vector<Finding> findings = evaluate_measurement(m, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_TRUE(findings[0].remedy.starts_with(
      "Open MPI's op/avx component sums 8-bit integers with saturation. Data corruption:"))
      << findings[0].remedy;
}

TEST(EvaluateWrongElements, ZeroIsNotAFinding) {
  EXPECT_TRUE(evaluate_measurement(wrong_elements(0), Profile{}).empty());
}

TEST(Evaluate, ConcatenatesInMeasurementOrder) {
  const Profile profile = profile_of({busbw_expectation(), latency_expectation()});
  const std::vector<Finding> findings =
      evaluate({latency(7), busbw(0.1), wrong_elements(0), busbw(2)}, profile);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[1].severity, Severity::fail);
  EXPECT_EQ(findings[2].severity, Severity::pass);
}

// A profile with a [[path]] over all_reduce busbw (tiers 0.5-1.5 and 2-4 GB/s) beside the
// thresholds: figures with and without a threshold, on and off the path.
Profile profile_with_path() {
  Profile profile = profile_of({busbw_expectation(), latency_expectation()});
  TierPath path;
  path.name = "inter_node";
  path.figures = {{"coll.all_reduce", "busbw"}, {"coll.all_gather", "busbw"}};
  path.unit = "GB/s";
  path.expect = "fast";
  path.tiers = {{"slow", "", 0.5, 1.5, "measured", 0}, {"fast", "", 2, 4, "measured", 0}};
  profile.paths.push_back(path);
  return profile;
}

std::vector<Measurement> mixed_figures() {
  Measurement gather = busbw(3);
  gather.probe = "coll.all_gather";
  Measurement waived = latency(1);
  waived.status = MeasurementStatus::waived;
  waived.message = "no GPU";
  return {latency(7),        busbw(0.1), busbw(2, 512), wrong_elements(0), busbw(3), gather,
          wrong_elements(4), latency(3), waived,        busbw(1.2)};
}

// evaluate() looks expectations up by probe and metric: the same findings, in the same order,
// as judging each figure against the whole profile.
TEST(Evaluate, LookupByFigureJudgesAsTheWholeProfileDoes) {
  const Profile profile = profile_with_path();
  std::vector<Finding> one_by_one;
  for (const Measurement& m : mixed_figures()) {
    for (Finding& f : evaluate_measurement(m, profile)) one_by_one.push_back(std::move(f));
  }
  const std::vector<Finding> together = evaluate(mixed_figures(), profile);
  ASSERT_EQ(together.size(), one_by_one.size());
  ASSERT_GE(together.size(), 8u);
  for (std::size_t i = 0; i < together.size(); ++i) {
    EXPECT_EQ(together[i].severity, one_by_one[i].severity) << i;
    EXPECT_EQ(together[i].message, one_by_one[i].message) << i;
    EXPECT_EQ(together[i].source, one_by_one[i].source) << i;
  }
}

// count_passes says how many PASS findings evaluate_measurement gives a figure, and nothing when it
// gives anything else: thresholds, tiers, scopes, status, wrong elements and non-finite values.
TEST(CountPasses, AgreesWithEvaluateMeasurement) {
  Profile profile = profile_with_path();
  Expectation mpi_one_host = busbw_expectation();
  mpi_one_host.backend = "mpi";
  mpi_one_host.hosts = HostScope::single;
  mpi_one_host.min_size = 64;
  profile.expectations.push_back(mpi_one_host);
  std::vector<Measurement> figures = mixed_figures();
  Measurement errored = busbw(2);
  errored.status = MeasurementStatus::error;
  Measurement not_finite = busbw(std::numeric_limits<double>::quiet_NaN());
  Measurement off_profile = busbw(2);
  off_profile.metric = "algbw";
  Measurement slow_tier = busbw(1);  // no threshold at this size: the tier path judges
  slow_tier.probe = "coll.all_gather";
  Measurement mpi = busbw(2);
  mpi.params = {{"backend", "mpi"}, {"hosts", "1"}};
  Measurement mpi_slow = mpi;
  mpi_slow.value = 0.7;
  Measurement mpi_unreadable_hosts = mpi_slow;
  mpi_unreadable_hosts.params["hosts"] = "many";
  Measurement mpi_two_hosts = mpi_slow;
  mpi_two_hosts.params.erase("hosts");
  mpi_two_hosts.host = "node-a,node-b";
  for (const Measurement& m : {errored, not_finite, off_profile, slow_tier, mpi, mpi_slow,
                               mpi_unreadable_hosts, mpi_two_hosts}) {
    figures.push_back(m);
  }
  const ProfileLookup lookup(profile);
  int counted = 0, whole = 0;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const std::vector<Finding> findings = evaluate_measurement(figures[i], profile);
    const bool all_pass = std::all_of(findings.begin(), findings.end(), [](const Finding& f) {
      return f.severity == Severity::pass;
    });
    const std::optional<std::size_t> passes = count_passes(FigureView::of(figures[i]), lookup);
    if (all_pass) {
      ASSERT_TRUE(passes.has_value()) << "figure " << i;
      EXPECT_EQ(*passes, findings.size()) << "figure " << i;
      ++counted;
    } else {
      EXPECT_FALSE(passes.has_value()) << "figure " << i << ": " << findings.front().message;
      ++whole;
    }
  }
  EXPECT_GE(counted, 6);
  EXPECT_GE(whole, 6);
}

// A collective's time with its samples: median 10.6 us, p99 76 ms, max 94 ms (the stored record
// with one stalled sample in 20).
Measurement stalled_time() {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "time_us";
  m.unit = "us";
  m.subject = "world";
  m.size_bytes = 65536;
  m.value = 10.6;
  SampleStats stats;
  stats.count = 20;
  stats.median = 10.6;
  stats.p99 = 76000;
  stats.max = 94000;
  m.stats = stats;
  return m;
}

Expectation tail_expectation(const std::string& stat, const std::string& unit, double pass,
                             double warn) {
  Expectation e;
  e.probe = "coll.all_reduce";
  e.metric = "time_us";
  e.unit = unit;
  e.stat = stat;
  e.better = Better::lower;
  e.min_size = 65536;
  e.max_size = 65536;
  e.pass = pass;
  e.warn = warn;
  e.source = "site";
  e.line = 12;
  return e;
}

TEST(EvaluateTail, AStatBoundsTheSamplesNotTheMedian) {
  // The median (10.6 us) would pass any of these bounds; the tail does not.
  const auto p99 =
      evaluate_measurement(stalled_time(), profile_of({tail_expectation("p99", "us", 100, 1000)}));
  ASSERT_EQ(p99.size(), 1u);
  EXPECT_EQ(p99[0].severity, Severity::fail);
  EXPECT_EQ(p99[0].observed, 76000.0);
  EXPECT_EQ(p99[0].message,
            "coll.all_reduce time_us p99 at 64KiB: 76000 us, expected <= 100 us (FAIL above 1000)");
  // 76000 / 10.6 = 7169.8: above a WARN bound of 5000, below a FAIL at 10000.
  const auto ratio = evaluate_measurement(
      stalled_time(), profile_of({tail_expectation("p99/median", "ratio", 20, 10000)}));
  ASSERT_EQ(ratio.size(), 1u);
  EXPECT_EQ(ratio[0].severity, Severity::warn);
  EXPECT_NEAR(*ratio[0].observed, 76000 / 10.6, 1e-9);
  const auto max = evaluate_measurement(
      stalled_time(), profile_of({tail_expectation("max", "us", 100000, 200000)}));
  ASSERT_EQ(max.size(), 1u);
  EXPECT_EQ(max[0].severity, Severity::pass);
  // Another size: not judged.
  Measurement other = stalled_time();
  other.size_bytes = 1048576;
  EXPECT_TRUE(
      evaluate_measurement(other, profile_of({tail_expectation("p99", "us", 100, 1000)})).empty());
}

TEST(EvaluateTail, ATimeWithoutSamplesIsAnErrorNotAPass) {
  Measurement bare = stalled_time();
  bare.stats.reset();
  const auto findings =
      evaluate_measurement(bare, profile_of({tail_expectation("p99", "us", 100, 1000)}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_NE(findings[0].message.find("no sample statistics"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("profile line 12"), std::string::npos);
  // The fleet's fast path never counts a stat bound as passed: it judges the whole measurement.
  const Profile profile = profile_of({tail_expectation("max", "us", 100000, 200000)});
  EXPECT_FALSE(count_passes(FigureView::of(stalled_time()), ProfileLookup(profile)).has_value());
}

// Defect 5: a scoped expectation judges only the figures of its backend and host count;
// generic-cpu's MPI floors never judge an NCCL figure (nor one that does not say its backend), nor
// a multi-host run.
TEST(EvaluateScope, BackendAndHostsKeepAnExpectationToItsRuns) {
  Expectation mpi_one_host = busbw_expectation();
  mpi_one_host.backend = "mpi";
  mpi_one_host.hosts = HostScope::single;
  const Profile profile = profile_of({mpi_one_host});
  Measurement m = busbw(0.1);
  m.host = "node-a";
  m.params = {{"backend", "mpi"}, {"hosts", "1"}};
  EXPECT_EQ(severity_of(m, profile), Severity::fail);
  m.params["backend"] = "nccl";
  EXPECT_TRUE(evaluate_measurement(m, profile).empty());
  m.params.erase("backend");
  EXPECT_TRUE(evaluate_measurement(m, profile).empty());
  m.params = {{"backend", "mpi"}, {"hosts", "2"}};
  m.host = "node-a,node-b";
  EXPECT_TRUE(evaluate_measurement(m, profile).empty());

  Expectation multi = busbw_expectation();
  multi.hosts = HostScope::multi;
  EXPECT_EQ(severity_of(m, profile_of({multi})), Severity::fail);
  m.params.erase("hosts");  // the host list says it: two hosts
  EXPECT_EQ(severity_of(m, profile_of({multi})), Severity::fail);
  m.host = "node-a";
  EXPECT_TRUE(evaluate_measurement(m, profile_of({multi})).empty());
}

// Data checked element by element is a judgement: one PASS per probe that found nothing wrong, none
// for a probe with a wrong element (its FAIL says so), nothing for a waived record.
TEST(VerificationPasses, OnePassPerCleanProbeNoneWhereAnythingWasWrong) {
  auto wrong = [](const std::string& probe, double value, const std::string& host) {
    Measurement m;
    m.probe = probe;
    m.metric = "wrong_elements";
    m.unit = "count";
    m.subject = "world";
    m.value = value;
    m.by_rank = {{0, host, 0}, {1, "node-b", value}};
    return m;
  };
  Measurement waived = wrong("coll.alltoall", 0, "node-a");
  waived.status = MeasurementStatus::waived;
  const auto passes = verification_passes(
      {wrong("coll.all_reduce", 0, "node-a"), wrong("coll.all_reduce", 0, "node-a"),
       wrong("coll.broadcast", 0, "node-a"), wrong("coll.broadcast", 3, "node-a"), waived});
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].probe, "coll.all_reduce");
  EXPECT_EQ(passes[0].severity, Severity::pass);
  EXPECT_EQ(passes[0].message,
            "coll.all_reduce: every result verified, no wrong element (2 checks, 2 host(s))");
  EXPECT_TRUE(verification_passes({}).empty());
}

}  // namespace
}  // namespace fabcheck
