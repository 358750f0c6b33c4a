// compare_figures on synthetic stores with hand-computed figures: one finding per subject (a slow
// link measured from both ends, two metrics at two sizes, is one finding), and each figure's
// tolerance from the reference's own spread (a noisy healthy pair 41% down WARNs, a 3x slowdown
// of it FAILs, a halving FAILs whatever the spread; a time's samples widen its tolerance).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "results/compare.hpp"

namespace fabcheck {
namespace {

using ::testing::HasSubstr;

MetricCatalog catalog() {
  return {{"fabric.rdma_bw",
           {{"write_bw", {"Gb/s", Better::higher}}, {"read_bw", {"Gb/s", Better::higher}}}},
          {"coll.all_reduce", {{"time_us", {"us", Better::lower}}}}};
}

struct Figure {
  std::string host, probe, metric, unit, subject, peer;
  std::uint64_t size = 0;
  double value = 0;
  double p99_over_median = 0;  // > 0: the record keeps its samples' statistics
};

// One run of `host` (or of several hosts) holding `figures`.
void add_run(FleetStore& store, const std::string& dir, const std::string& started,
             const std::vector<Figure>& figures) {
  RunInfo run;
  run.dir = dir;
  run.started_utc = started;
  for (const Figure& f : figures) {
    if (std::find(run.hosts.begin(), run.hosts.end(), f.host) == run.hosts.end()) {
      run.hosts.push_back(f.host);
    }
  }
  const std::uint32_t id = store.add_run(run);
  for (const Figure& f : figures) {
    Measurement m = make_measurement(f.probe, f.metric, f.value, f.unit, f.subject);
    m.host = f.host;
    m.peer = f.peer;
    m.size_bytes = f.size;
    if (f.p99_over_median > 0) {
      m.stats = SampleStats{20,
                            f.value * 0.99,
                            f.value,
                            f.value * f.p99_over_median,
                            f.value * f.p99_over_median,
                            f.value,
                            0.01};
    }
    store.add(m, id);
  }
}

// The write and read bandwidth of a/mlx5_0 <-> b/mlx5_0 measured from both ends at 4 and 8 MiB.
std::vector<Figure> link_ab(double value) {
  std::vector<Figure> figures;
  for (const auto& [host, peer] : {std::pair{"a", "b/mlx5_0"}, std::pair{"b", "a/mlx5_0"}}) {
    for (const char* metric : {"write_bw", "read_bw"}) {
      for (const std::uint64_t size : {4ull << 20, 8ull << 20}) {
        figures.push_back({host, "fabric.rdma_bw", metric, "Gb/s", "mlx5_0", peer, size, value});
      }
    }
  }
  return figures;
}

Figure pair_cd(double value) {
  return {"c", "fabric.rdma_bw", "write_bw", "Gb/s", "mlx5_0", "d/mlx5_0", 8ull << 20, value};
}

Comparison compare(const std::function<std::vector<Figure>(int)>& earlier,
                   const std::vector<Figure>& now_figures, int runs = 5) {
  FleetStore reference;
  for (int r = 1; r <= runs; ++r) {
    add_run(reference, "night-" + std::to_string(r), "2026-11-2" + std::to_string(r), earlier(r));
  }
  FleetStore now;
  add_run(now, "tonight", "2026-11-30", now_figures);
  static const MetricCatalog metrics = catalog();
  CompareOptions options;
  options.catalog = &metrics;
  return compare_figures(now, reference, options);
}

// Before: four findings (a's and b's write and read), each "[at 2 sizes]"; now one, the link's.
TEST(Compare, ASlowLinkIsOneFindingListingWhatFell) {
  const double nights[] = {0, 395, 396, 394, 395, 397};  // median 395, MAD 1: the 10% floor
  const Comparison c =
      compare([&](int r) { return link_ab(nights[r]); }, link_ab(395.0 / 3));  // 3x slower
  ASSERT_EQ(c.findings.size(), 1u);
  const Finding& f = c.findings.front();
  EXPECT_EQ(f.severity, Severity::fail);
  EXPECT_EQ(f.host, "a");
  EXPECT_EQ(f.subject, "a/mlx5_0--b/mlx5_0");
  EXPECT_THAT(f.message, HasSubstr("a/mlx5_0--b/mlx5_0: 4 figures fell: FAIL "));
  EXPECT_THAT(f.message, HasSubstr("a/mlx5_0 -> b/mlx5_0 fabric.rdma_bw write_bw at 4MiB: 131.7 "
                                   "Gb/s is 67% below its reference 395 Gb/s (median of 5 earlier "
                                   "runs; tolerance 10%: the floor (--tolerance); the 5 earlier "
                                   "runs' MAD 0.3%)"));
  EXPECT_THAT(f.message, HasSubstr("b/mlx5_0 -> a/mlx5_0 fabric.rdma_bw read_bw"));
  EXPECT_THAT(f.message, HasSubstr("[at 2 sizes, 2 beyond the tolerance; the worst shown]"));
  EXPECT_EQ(c.compared, 8u);
  EXPECT_DOUBLE_EQ(*f.expected, 395);
}

// 300..460 Gb/s over five nights: median 380, MAD 40 (10.5%), 3 robust sigmas 46.8%.
double noisy(int r) { return 260 + 40.0 * r; }

TEST(Compare, ANoisyHealthyPairFortyOnePercentDownWarnsItsThreeTimesSlowerFails) {
  // 224 is 41.05% below 380: beyond half the 47% (WARN), not beyond it (no FAIL; before: FAIL,
  // beyond the fixed 10%).
  Comparison c =
      compare([](int r) { return std::vector<Figure>{pair_cd(noisy(r))}; }, {pair_cd(224)});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].severity, Severity::warn) << c.findings[0].message;
  EXPECT_EQ(c.findings[0].subject, "c/mlx5_0--d/mlx5_0");
  EXPECT_THAT(c.findings[0].message,
              HasSubstr("is 41% below its reference 380 Gb/s (median of 5 earlier runs; "
                        "tolerance 47%: 3 robust sigmas of the 5 earlier runs' MAD 10.5%)"));
  // 380 / 3: 66.7% below, beyond 47%.
  c = compare([](int r) { return std::vector<Figure>{pair_cd(noisy(r))}; }, {pair_cd(380.0 / 3)});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].severity, Severity::fail);
}

TEST(Compare, AHalvingFailsHoweverWideTheSpread) {
  // 300, 330, 380, 430, 460: MAD 50 (13.2%), 3 robust sigmas 58.5%: at most 50%. 171 is 55% down.
  const double nights[] = {0, 300, 330, 380, 430, 460};
  const Comparison c =
      compare([&](int r) { return std::vector<Figure>{pair_cd(nights[r])}; }, {pair_cd(171)});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].severity, Severity::fail);
  EXPECT_THAT(c.findings[0].message,
              HasSubstr("tolerance 50%: at most 50% whatever the spread; 3 robust sigmas of the 5 "
                        "earlier runs' MAD 13.2%)"));
}

TEST(Compare, ATimesSamplesWidenItsTolerance) {
  // Two earlier runs (too few for their spread) at 100 us, their samples' p99 1.3x their median:
  // tolerance 30%. 125 us is 25% above: a WARN (before: a FAIL beyond 10%); 140 us a FAIL.
  auto time = [](double us, double p99) {
    return Figure{"e", "coll.all_reduce", "time_us", "us", "world", "", 1ull << 20, us, p99};
  };
  Comparison c =
      compare([&](int) { return std::vector<Figure>{time(100, 1.3)}; }, {time(125, 1.01)}, 2);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].severity, Severity::warn);
  EXPECT_THAT(c.findings[0].message,
              HasSubstr("e: world: 1 figure fell: WARN coll.all_reduce time_us at 1MiB: 125 us is "
                        "25% above its reference 100 us (median of 2 earlier runs; tolerance 30%: "
                        "the earlier samples' spread: p99 30% over their median; 2 earlier runs, "
                        "too few (under 3) for their spread)"));
  c = compare([&](int) { return std::vector<Figure>{time(100, 1.3)}; }, {time(140, 1.01)}, 2);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].severity, Severity::fail);
}

TEST(Compare, FigureToleranceFloorSpreadAndCap) {
  CompareOptions options;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FigureTolerance t = figure_tolerance({395, 396, 394, 395, 397}, 395, nan, options);
  EXPECT_DOUBLE_EQ(t.fraction, 0.10);
  EXPECT_EQ(t.why, "the floor (--tolerance); the 5 earlier runs' MAD 0.3%");
  t = figure_tolerance({300, 340, 380, 420, 460}, 380, nan, options);
  EXPECT_NEAR(t.fraction, 3 * 1.4826 * 40 / 380, 1e-12);  // 0.46819
  // A floor above the cap is the tolerance.
  options.tolerance = 0.6;
  t = figure_tolerance({300, 330, 380, 430, 460}, 380, nan, options);
  EXPECT_DOUBLE_EQ(t.fraction, 0.6);
}

}  // namespace
}  // namespace fabcheck
