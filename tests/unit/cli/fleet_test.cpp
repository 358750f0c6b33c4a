// The synthetic sweep (tests/synthetic): every injected fault found at the right subject and
// nothing else, by `fabcheck evaluate` (peers, family judges, defaults from evidence) and by
// `fabcheck compare` against a fleet history written over three nights before.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "bench/cli/evaluate_command.hpp"
#include "bench/cli/probe_families.hpp"
#include "bench/cli/profile_lookup.hpp"
#include "results/compare.hpp"
#include "results/evaluator.hpp"
#include "results/history.hpp"
#include "results/record_json.hpp"
#include "results/run_reader.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/synthetic/every_probe_registry.hpp"
#include "tests/synthetic/synthetic_fleet.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using synthetic::Fault;

using fabcheck::testing::TempDir;  // tests/doubles/temp_dir.hpp

const Registry& registry() { return synthetic::every_probe_registry(); }

// The fault this finding is about (its exact host and subject), or nullptr.
const Fault* fault_of(const Finding& f, const std::vector<Fault>& faults) {
  for (const Fault& fault : faults) {
    for (const auto& place : fault.places) {
      if (place.host == f.host && place.subject == f.subject) return &fault;
    }
  }
  return nullptr;
}

std::string describe(const Finding& f) {
  return std::string(to_string(f.severity)) + " " + f.host + " " + f.probe + " " + f.subject +
         ": " + f.message;
}

class SyntheticFleet : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    synthetic::FleetSpec spec;
    spec.nodes = 32;  // every fault on its own node; small enough for CI (a few seconds)
    fleet_ = new synthetic::Fleet(synthetic::write_fleet(dir_->path() / "tonight", spec));
  }
  static void TearDownTestSuite() {
    delete fleet_;
    delete dir_;
  }
  static TempDir* dir_;
  static synthetic::Fleet* fleet_;
};
TempDir* SyntheticFleet::dir_ = nullptr;
synthetic::Fleet* SyntheticFleet::fleet_ = nullptr;

// The sweep is what runs leave: every measurement line is byte for byte what a run's writer writes
// for the record it holds (keys sorted, compact), so the benchmarks read the real format.
TEST_F(SyntheticFleet, LinesAreWhatARunWrites) {
  const fs::path file = dir_->path() / "tonight" / synthetic::node_name(3) / "measurements.jsonl";
  std::ifstream in(file);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    const Measurement m = measurement_from_json(nlohmann::json::parse(line), file.string());
    ASSERT_EQ(to_jsonl_line(to_json(m)), line + "\n") << file << ":" << lines;
  }
  EXPECT_GT(lines, 800u);
}

TEST_F(SyntheticFleet, EvaluateFindsEveryFaultAtItsSubjectAndNothingElse) {
  ASSERT_EQ(fleet_->faults.size(), 6u);
  const FleetEvaluation e = evaluate_runs({(dir_->path() / "tonight").string()}, "", registry(), 2);
  EXPECT_EQ(e.nodes.size(), 32u);
  EXPECT_GT(e.store.rows.size(), 25000u);
  std::set<const Fault*> found;
  for (const Finding& f : e.findings) {
    if (f.severity == Severity::pass || f.severity == Severity::waived) continue;
    const Fault* fault = fault_of(f, fleet_->faults);
    ASSERT_NE(fault, nullptr) << "a finding no fault explains: " << describe(f);
    EXPECT_FALSE(fault->found_by_compare)
        << "peers flagged the history-only regression: " << describe(f);
    found.insert(fault);
  }
  std::set<std::string> expected_drain;
  const Fault* slow_pair = nullptr;
  for (const Fault& fault : fleet_->faults) {
    if (fault.found_by_compare) continue;
    EXPECT_TRUE(found.count(&fault))
        << "not found: " << synthetic::to_string(fault.kind) << " on " << fault.host;
    if (fault.link) {
      slow_pair = &fault;
    } else {
      expected_drain.insert(fault.host);
    }
  }
  // The nodes to drain: exactly the nodes of the node faults; never a partner that measured the
  // half-rate port, nor either end of the slow pair (a link).
  EXPECT_EQ(std::set<std::string>(e.drain.begin(), e.drain.end()), expected_drain);
  EXPECT_EQ(e.drain.size(), expected_drain.size());
  // The links: the slow pair's path and rails, and the rails through the half-rate port, each
  // counted for neither end.
  ASSERT_NE(slow_pair, nullptr);
  bool path = false;
  for (const std::size_t i : e.links) {
    const Finding& f = e.findings[i];
    const Fault* fault = fault_of(f, fleet_->faults);
    ASSERT_NE(fault, nullptr) << describe(f);
    EXPECT_TRUE(fault == slow_pair || fault->kind == synthetic::FaultKind::half_rate_port)
        << describe(f);
    path = path || f.subject == slow_pair->places.front().subject;
  }
  EXPECT_TRUE(path) << "the slow pair's path is not among the links";
  // The half-rate port's HCA, slow with every partner, is named on its own node.
  const Fault& port = fleet_->faults[2];
  ASSERT_EQ(port.kind, synthetic::FaultKind::half_rate_port);
  EXPECT_TRUE(std::any_of(e.findings.begin(), e.findings.end(), [&](const Finding& f) {
    return f.host == port.host && f.subject == "mlx5_3" && f.probe == "fabric.rdma_bw" &&
           f.severity == Severity::fail;
  }));
  for (const NodeSummary& node : e.nodes) {
    EXPECT_EQ(node.verdict == Verdict::fail, expected_drain.count(node.host) > 0) << node.host;
  }
  EXPECT_EQ(e.verdict, Verdict::fail);
  EXPECT_TRUE(e.recheck.empty());
}

// Fleet evaluation counts the figures that only pass without turning them back into measurements:
// it must count exactly the PASS findings, and give exactly the other findings, that evaluate()
// gives the same figures as measurements (no family judge here: the evaluator alone).
TEST_F(SyntheticFleet, CountedPassesAreExactlyTheEvaluatorsPasses) {
  const Profile profile = load_profile_for(
      "h100-sxm-8", registry(), nullptr, {std::string(FABCHECK_SOURCE_DIR) + "/results/profiles"});
  FleetEvaluationOptions options;
  options.profile_for = [&profile](const RunInfo&) -> const Profile& { return profile; };
  options.threads = 2;
  const FleetEvaluation e =
      evaluate_fleet(find_run_dirs({(dir_->path() / "tonight").string()}), options);
  std::vector<Measurement> all;
  for (const FigureRow& row : e.store.rows) all.push_back(e.store.materialize(row));
  const std::vector<Finding> whole = evaluate(all, profile);
  const auto passes = std::count_if(whole.begin(), whole.end(),
                                    [](const Finding& f) { return f.severity == Severity::pass; });
  EXPECT_GT(passes, 4000);
  EXPECT_EQ(e.counts.at(Severity::pass), passes);
  // (Subjects aside: the fleet names a link's findings by both ends.)
  auto words = [](const Finding& f) {
    return std::string(to_string(f.severity)) + " " + f.host + " " + f.probe + ": " + f.message;
  };
  std::multiset<std::string> expected, got;
  for (const Finding& f : whole) {
    if (f.severity != Severity::pass) expected.insert(words(f));
  }
  for (const Finding& f : e.findings) {
    if (f.probe != "run" && f.source.rfind("inferred", 0) != 0) got.insert(words(f));
  }
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(got, expected);
}

TEST_F(SyntheticFleet, AHealthyFleetRaisesNothing) {
  TempDir healthy;
  synthetic::FleetSpec spec;
  spec.nodes = 24;
  spec.faults = false;
  synthetic::write_fleet(healthy.path(), spec);
  const FleetEvaluation e = evaluate_runs({healthy.path().string()}, "", registry(), 2);
  for (const Finding& f : e.findings) {
    EXPECT_TRUE(f.severity == Severity::pass || f.severity == Severity::waived) << describe(f);
  }
  EXPECT_EQ(e.verdict, Verdict::pass);
  EXPECT_TRUE(e.drain.empty());
}

TEST_F(SyntheticFleet, CompareAgainstHistoryFindsTheRegressionPeersCannotSee) {
  if (!history_available()) GTEST_SKIP() << "built without HDF5";
  const fs::path history = dir_->path() / "fleet.h5";
  synthetic::FleetSpec spec;
  spec.nodes = 32;
  for (int night = 3; night >= 1; --night) {
    const fs::path before = dir_->path() / ("night-" + std::to_string(night));
    synthetic::write_fleet(before, spec, night);
    FleetStore store;
    for (const fs::path& run : find_run_dirs({before.string()})) read_run_dir(run, store);
    for (RunInfo& run : store.runs) run.started_utc = "2026-11-2" + std::to_string(7 - night);
    append_history(history, store);
  }
  FleetStore tonight;
  std::set<std::string> hosts;
  for (const fs::path& run : find_run_dirs({(dir_->path() / "tonight").string()})) {
    read_run_dir(run, tonight);
  }
  for (const RunInfo& run : tonight.runs) hosts.insert(run.hosts.begin(), run.hosts.end());
  const FleetStore reference = read_history(history, &hosts, 0);
  EXPECT_EQ(reference.runs.size(), 3u * 32u);
  const MetricCatalog catalog = registry().catalog();
  CompareOptions options;
  options.catalog = &catalog;
  const Comparison comparison = compare_figures(tonight, reference, options);
  EXPECT_GT(comparison.compared, 15000u);
  bool regression = false;
  for (const Finding& f : comparison.findings) {
    // A link is one finding, its ends in order whichever measured it ("a/mlx5_3--b/mlx5_3" on
    // a): the fault may name it from the other end.
    const Fault* fault = fault_of(f, fleet_->faults);
    const auto link = f.subject.find("--");
    if (fault == nullptr && link != std::string::npos) {
      Finding other = f;
      other.subject = f.subject.substr(link + 2) + "--" + f.subject.substr(0, link);
      other.host = other.subject.substr(0, other.subject.find('/'));
      fault = fault_of(other, fleet_->faults);
    }
    ASSERT_NE(fault, nullptr) << "a regression no fault explains: " << describe(f);
    regression = regression || fault->kind == synthetic::FaultKind::history_regression;
  }
  EXPECT_TRUE(regression) << "the node slower than its own history was not found";
  // Its trend: three nights near 1, tonight far below.
  const std::string node = fleet_->faults.back().host;
  bool trend = false;
  for (const NodeTrend& t : comparison.trends) {
    if (t.host != node) continue;
    trend = true;
    ASSERT_EQ(t.points.size(), 4u);
    EXPECT_EQ(t.points.back().when, "now");
    EXPECT_EQ(t.points.front().when, "2026-11-24");
  }
  EXPECT_TRUE(trend);

  // The history is readable by h5py (Debian's python3-h5py) with the documented layout.
  if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 has no h5py";
  }
  const std::string script =
      "import h5py, sys\n"
      "f = h5py.File(sys.argv[1], 'r')\n"
      "s = f['strings'].asstr()[:]\n"
      "fig = f['figures'][:]\n"
      "runs = f['runs'][:]\n"
      "assert f.attrs['kind'] == 'fabcheck-history', f.attrs['kind']\n"
      "sel = (s[fig['probe']] == 'storage.seq_read') & (s[fig['metric']] == 'bw') & "
      "(s[fig['host']] == sys.argv[2])\n"
      "print(len(runs), len(fig), sel.sum(), s[runs['started_utc'][fig['run'][sel]]][0])\n";
  const fs::path py = dir_->path() / "read.py";
  std::ofstream(py) << script;
  const fs::path out = dir_->path() / "py.out";
  const std::string command = "/usr/bin/python3 " + py.string() + " " + history.string() + " " +
                              node + " > " + out.string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(out).rdbuf();
  std::ifstream result(out);
  std::size_t runs = 0, figures = 0, selected = 0;
  std::string first_night;
  result >> runs >> figures >> selected >> first_night;
  EXPECT_EQ(runs, 96u);
  EXPECT_GT(figures, 60000u);
  EXPECT_EQ(selected, 3u);  // one storage.seq_read figure a night
  EXPECT_EQ(first_night, "2026-11-24");
}

}  // namespace
}  // namespace fabcheck
