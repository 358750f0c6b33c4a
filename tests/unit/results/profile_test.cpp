// Tests of profile parsing: the happy path, every rejected form with its "file:line:" and value,
// loading from a file and resolving a profile by name.
#include "results/profile.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/sys/config_error.hpp"
#include "test_catalog.hpp"

namespace fabcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::test_catalog;

const std::string kFixtures = std::string(FABCHECK_FIXTURES_DIR) + "/profiles";

// A profile whose single [[expect]] starts on line 4 and holds `lines` from line 5 on.
std::string with_expect(const std::vector<std::string>& lines) {
  std::string text = "[profile]\nname = \"t\"\n\n[[expect]]\n";
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// The valid expectation, line 5 to line 10.
std::vector<std::string> valid_lines() {
  return {"probe = \"coll.all_reduce\"",
          "metric = \"busbw\"",
          "unit = \"GB/s\"",
          "pass = 1.0",
          "warn = 0.5",
          "source = \"s\""};
}

std::vector<std::string> replaced(std::size_t index, const std::string& line) {
  std::vector<std::string> lines = valid_lines();
  lines.at(index) = line;
  return lines;
}

std::string error_of(const std::string& text) {
  try {
    parse_profile(text, "t.toml", test_catalog());
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ParseProfile, ReadsEveryField) {
  const Profile profile = load_profile(kFixtures + "/test-cluster.toml", test_catalog());
  EXPECT_EQ(profile.name, "test-cluster");
  EXPECT_EQ(profile.description, "Two collectives and a latency, for the results unit tests");
  EXPECT_EQ(profile.path, kFixtures + "/test-cluster.toml");
  ASSERT_EQ(profile.expectations.size(), 3u);

  const Expectation& busbw = profile.expectations[0];
  EXPECT_EQ(busbw.probe, "coll.all_reduce");
  EXPECT_EQ(busbw.metric, "busbw");
  EXPECT_EQ(busbw.unit, "GB/s");
  EXPECT_EQ(busbw.better, Better::higher);
  EXPECT_EQ(busbw.min_size, 1048576u);
  EXPECT_EQ(busbw.max_size, 268435456u);
  EXPECT_EQ(busbw.pass, 1.0);
  EXPECT_EQ(busbw.warn, 0.5);
  EXPECT_EQ(busbw.source, "hand-picked for the tests");
  EXPECT_EQ(busbw.remedy, "check the NICs");
  EXPECT_EQ(busbw.line, 6);

  const Expectation& time = profile.expectations[1];
  EXPECT_EQ(time.better, Better::lower);
  EXPECT_EQ(time.min_size, 8u);
  EXPECT_EQ(time.max_size, 8u);
  EXPECT_EQ(time.pass, 20.0) << "integers are numbers too";
  EXPECT_EQ(time.warn, 40.0);
  EXPECT_EQ(time.remedy, "");
  EXPECT_EQ(time.line, 16);

  const Expectation& latency = profile.expectations[2];
  EXPECT_EQ(latency.probe, "gpu.launch");
  EXPECT_FALSE(latency.min_size.has_value());
  EXPECT_FALSE(latency.max_size.has_value());
  EXPECT_EQ(latency.warn, 10.5);
}

TEST(ParseProfile, NameDefaultsToTheFileStemAndNoExpectationsIsValid) {
  const Profile profile = parse_profile("", "dir/empty.toml", test_catalog());
  EXPECT_EQ(profile.name, "empty");
  EXPECT_TRUE(profile.expectations.empty());
}

TEST(ParseProfile, EqualThresholdsAreAllowedInBothDirections) {
  EXPECT_NO_THROW(parse_profile(with_expect(replaced(4, "warn = 1.0")), "t.toml", test_catalog()));
  std::vector<std::string> lines = valid_lines();
  lines[1] = "metric = \"time_us\"";
  lines[2] = "unit = \"us\"";
  lines[3] = "pass = 5";
  lines[4] = "warn = 5";
  EXPECT_NO_THROW(parse_profile(with_expect(lines), "t.toml", test_catalog()));
}

TEST(ParseProfileErrors, SyntaxErrorNamesTheLine) {
  EXPECT_THAT(error_of("[profile]\nname = \"t\"\nname2 = = 3\n"),
              StartsWith("t.toml:3: TOML syntax error: "));
}

TEST(ParseProfileErrors, UnknownTopLevelKey) {
  EXPECT_EQ(
      error_of("[profile]\nname = \"t\"\n\n[expectations]\n"),
      "t.toml:4: unknown top-level key \"expectations\" (known: expect, node, path, profile, sdc)");
  EXPECT_EQ(
      error_of("version = 2\n"),
      "t.toml:1: unknown top-level key \"version\" (known: expect, node, path, profile, sdc)");
}

TEST(ParseProfileErrors, UnknownKeyInProfileTable) {
  EXPECT_EQ(error_of("[profile]\nname = \"t\"\nnmae = \"x\"\n"),
            "t.toml:3: unknown key \"nmae\" in [profile] (known: description, name)");
}

TEST(ParseProfileErrors, ProfileAndExpectMustBeTables) {
  EXPECT_EQ(error_of("profile = \"x\"\n"),
            "t.toml:1: \"profile\" must be a table ([profile]), got string \"x\"");
  EXPECT_EQ(error_of("\n[expect]\nprobe = \"coll.all_reduce\"\n"),
            "t.toml:2: \"expect\" must be an array of tables ([[expect]]), got a table");
}

TEST(ParseProfileErrors, UnknownKeyInExpect) {
  std::vector<std::string> lines = valid_lines();
  lines.push_back("sizes_bytes = \"1M\"");
  EXPECT_EQ(error_of(with_expect(lines)),
            "t.toml:11: unknown key \"sizes_bytes\" in [[expect]] (known: backend, hosts, metric, "
            "pass, probe, remedy, sizes, source, stat, subject, unit, warn)");
}

TEST(ParseProfileErrors, EachMissingRequiredKeyIsNamedAtTheTableLine) {
  const std::vector<std::string> keys = {"probe", "metric", "unit", "pass", "warn", "source"};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::string> lines = valid_lines();
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
    EXPECT_EQ(error_of(with_expect(lines)),
              "t.toml:4: [[expect]] is missing required key \"" + keys[i] + "\"");
  }
}

TEST(ParseProfileErrors, WrongValueTypes) {
  EXPECT_EQ(error_of(with_expect(replaced(3, "pass = \"1.0\""))),
            "t.toml:8: key \"pass\" must be a number, got string \"1.0\"");
  EXPECT_EQ(error_of(with_expect(replaced(4, "warn = true"))),
            "t.toml:9: key \"warn\" must be a number, got boolean true");
  EXPECT_EQ(error_of(with_expect(replaced(0, "probe = 3"))),
            "t.toml:5: key \"probe\" must be a string, got integer 3");
  EXPECT_EQ(error_of(with_expect(replaced(5, "source = [\"a\"]"))),
            "t.toml:10: key \"source\" must be a string, got an array");
  EXPECT_EQ(error_of("[profile]\nname = 1.5\n"),
            "t.toml:2: key \"name\" must be a string, got float 1.5");
  EXPECT_EQ(error_of(with_expect(replaced(3, "pass = nan"))),
            "t.toml:8: key \"pass\" must be a finite number, got float nan");
}

TEST(ParseProfileErrors, EmptySource) {
  EXPECT_EQ(error_of(with_expect(replaced(5, "source = \" \""))),
            "t.toml:10: key \"source\" must not be empty: say where the figure comes from");
}

TEST(ParseProfileErrors, UnknownProbeListsTheKnownOnes) {
  EXPECT_EQ(error_of(with_expect(replaced(0, "probe = \"coll.allreduce\""))),
            "t.toml:5: unknown probe \"coll.allreduce\" (known: coll.all_reduce, gpu.launch)");
}

TEST(ParseProfileErrors, UnknownMetricListsTheProbesMetrics) {
  EXPECT_EQ(error_of(with_expect(replaced(1, "metric = \"busbwx\""))),
            "t.toml:6: unknown metric \"busbwx\" for probe coll.all_reduce (known: algbw, busbw, "
            "time_us, wrong_elements)");
}

TEST(ParseProfileErrors, UnitMismatch) {
  EXPECT_EQ(error_of(with_expect(replaced(2, "unit = \"GiB/s\""))),
            "t.toml:7: unit \"GiB/s\" does not match the unit of coll.all_reduce busbw (\"GB/s\")");
}

// A bound on a time's tail, size by size: the p99 or max of its samples (its unit), or the
// p99 over the median ("ratio"); lower is better.
std::vector<std::string> tail_lines(const std::string& stat, const std::string& unit) {
  return {"probe = \"coll.all_reduce\"",
          "metric = \"time_us\"",
          "unit = \"" + unit + "\"",
          "pass = 20",
          "warn = 50",
          "source = \"s\"",
          "stat = \"" + stat + "\"",
          "sizes = \"64K\""};
}

TEST(ParseProfile, AStatBoundsATimesTail) {
  const Profile p99 = parse_profile(with_expect(tail_lines("p99", "us")), "t.toml", test_catalog());
  ASSERT_EQ(p99.expectations.size(), 1u);
  EXPECT_EQ(p99.expectations[0].stat, "p99");
  EXPECT_EQ(p99.expectations[0].better, Better::lower);
  const Profile ratio =
      parse_profile(with_expect(tail_lines("p99/median", "ratio")), "t.toml", test_catalog());
  EXPECT_EQ(ratio.expectations[0].stat, "p99/median");
  EXPECT_EQ(ratio.expectations[0].unit, "ratio");
  EXPECT_EQ(ratio.expectations[0].better, Better::lower);
}

TEST(ParseProfileErrors, AStatIsOneOfThreeOnATimeInItsUnit) {
  EXPECT_EQ(error_of(with_expect(tail_lines("p95", "us"))),
            "t.toml:11: stat \"p95\" is not one of p99, max, p99/median (leave it out to bound "
            "the figure itself)");
  EXPECT_EQ(error_of(with_expect(tail_lines("p99/median", "us"))),
            "t.toml:7: unit \"us\" does not match p99/median of coll.all_reduce time_us "
            "(\"ratio\")");
  EXPECT_EQ(error_of(with_expect(tail_lines("max", "ratio"))),
            "t.toml:7: unit \"ratio\" does not match max of coll.all_reduce time_us (\"us\")");
  std::vector<std::string> on_busbw = valid_lines();
  on_busbw.push_back("stat = \"p99\"");
  EXPECT_EQ(error_of(with_expect(on_busbw)),
            "t.toml:11: stat \"p99\" bounds the samples of a time (unit \"us\"); coll.all_reduce "
            "busbw is in \"GB/s\"");
}

TEST(ParseProfileErrors, MalformedSizes) {
  for (const char* sizes : {"1M:", ":1M", "1M:2M:3M", "1.5M", "", "big", "-1:4"}) {
    std::vector<std::string> lines = valid_lines();
    lines.push_back(std::string("sizes = \"") + sizes + "\"");
    EXPECT_EQ(error_of(with_expect(lines)),
              std::string("t.toml:11: malformed sizes \"") + sizes +
                  "\" (expected \"MIN:MAX\" or one size, e.g. \"1M:256M\" or \"4K\")");
  }
  std::vector<std::string> lines = valid_lines();
  lines.push_back("sizes = 1048576");
  EXPECT_EQ(error_of(with_expect(lines)),
            "t.toml:11: key \"sizes\" must be a string, got integer 1048576");
}

TEST(ParseProfileErrors, SizesMinAboveMax) {
  std::vector<std::string> lines = valid_lines();
  lines.push_back("sizes = \"256M:1M\"");
  EXPECT_EQ(error_of(with_expect(lines)),
            "t.toml:11: sizes \"256M:1M\": minimum 256MiB is above maximum 1MiB");
}

TEST(ParseProfileErrors, HigherIsBetterWarnAbovePass) {
  EXPECT_EQ(error_of(with_expect(replaced(4, "warn = 1.5"))),
            "t.toml:9: warn = 1.5 is above pass = 1 for coll.all_reduce busbw (higher is better: "
            "warn must be at most pass)");
}

TEST(ParseProfileErrors, LowerIsBetterWarnBelowPass) {
  std::vector<std::string> lines = valid_lines();
  lines[1] = "metric = \"time_us\"";
  lines[2] = "unit = \"us\"";
  lines[3] = "pass = 20";
  lines[4] = "warn = 10";
  EXPECT_EQ(error_of(with_expect(lines)),
            "t.toml:9: warn = 10 is below pass = 20 for coll.all_reduce time_us (lower is better: "
            "warn must be at least pass)");
}

TEST(ParseProfileErrors, SecondExpectationReportsItsOwnLine) {
  std::string text = with_expect(valid_lines());  // lines 1-10
  text += "\n[[expect]]\n";                       // line 12
  for (const std::string& line : replaced(1, "metric = \"bw\"")) text += line + "\n";
  EXPECT_THAT(error_of(text), StartsWith("t.toml:14: unknown metric \"bw\""));
}

TEST(LoadProfile, ErrorsNameTheFilePath) {
  const std::string path = kFixtures + "/unknown-metric.toml";
  try {
    load_profile(path, test_catalog());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              path +
                  ":10: unknown metric \"busbwx\" for probe coll.all_reduce (known: algbw, "
                  "busbw, time_us, wrong_elements)");
  }
}

TEST(LoadProfile, MissingFileIsAConfigError) {
  try {
    load_profile(kFixtures + "/absent.toml", test_catalog());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), kFixtures + "/absent.toml: does not exist");
  }
}

TEST(ResolveProfile, NameIsLookedUpInEachDirectoryInOrder) {
  const std::filesystem::path dir = kFixtures;
  EXPECT_EQ(resolve_profile("test-cluster", {"/nonexistent", dir}), dir / "test-cluster.toml");

  const auto first = std::filesystem::path(::testing::TempDir()) / "fabcheck_profiles_first";
  std::filesystem::create_directories(first);
  std::ofstream(first / "test-cluster.toml") << "";
  EXPECT_EQ(resolve_profile("test-cluster", {first, dir}), first / "test-cluster.toml");
  std::filesystem::remove_all(first);
}

TEST(ResolveProfile, PathsAreTakenAsGiven) {
  const std::string path = kFixtures + "/test-cluster.toml";
  EXPECT_EQ(resolve_profile(path, {}), path);
  try {
    resolve_profile("missing.toml", {kFixtures});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), "profile file \"missing.toml\" does not exist");
  }
}

TEST(ResolveProfile, UnknownNameListsTheAvailableOnes) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "fabcheck_profiles_listed";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "test-cluster.toml") << "";
  std::ofstream(dir / "unknown-metric.toml") << "";
  std::ofstream(dir / "notes.txt") << "";
  try {
    resolve_profile("h100", {dir, "/nonexistent"});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "unknown profile \"h100\" (available: test-cluster, unknown-metric; searched: " +
                  dir.string() + ", /nonexistent)");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fabcheck

namespace fabcheck {
namespace {

const NodeSettingCatalog kNodeSettings{{"gpu_pcie", "GPU link"}, {"ib_ports", "port count"}};

TEST(ProfileNodeTable, KnownKeysAreKeptAsTextWithTheirLines) {
  const Profile profile =
      parse_profile("[profile]\nname = \"t\"\n[node]\ngpu_pcie = \"5x16\"\nib_ports = 8\n",
                    "t.toml", test_catalog(), kNodeSettings);
  EXPECT_EQ(profile.node.at("gpu_pcie"), "5x16");
  EXPECT_EQ(profile.node.at("ib_ports"), "8");
  EXPECT_EQ(profile.node_lines.at("ib_ports"), 5);
}

TEST(ProfileNodeTable, UnknownKeyNamesLineAndKnownKeys) {
  try {
    parse_profile("[profile]\nname = \"t\"\n[node]\ngpu_pcie = \"5x16\"\nnvlinks = 18\n", "t.toml",
                  test_catalog(), kNodeSettings);
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "t.toml:5: unknown key \"nvlinks\" in [node] (known: gpu_pcie, ib_ports)");
  }
}

TEST(ProfileNodeTable, WithoutSettingsEveryKeyIsUnknownAndArraysAreRejected) {
  EXPECT_THROW(parse_profile("[node]\ngpu_pcie = \"5x16\"\n", "t.toml", test_catalog()),
               ConfigError);
  try {
    parse_profile("[node]\nib_ports = [1, 2]\n", "t.toml", test_catalog(), kNodeSettings);
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_THAT(std::string(error.what()),
                StartsWith("t.toml:2: key \"ib_ports\" in [node] must be"));
  }
}

// Defect 5: an expectation can be kept to one backend and to one host or several, so CPU/MPI floors
// never judge NCCL figures nor a run across hosts.
TEST(ParseProfile, ReadsTheScopeOfAnExpectation) {
  std::vector<std::string> lines = valid_lines();
  lines.push_back("backend = \"mpi\"");
  lines.push_back("hosts = \"single\"");
  const Profile profile = parse_profile(with_expect(lines), "t.toml", test_catalog());
  ASSERT_EQ(profile.expectations.size(), 1u);
  EXPECT_EQ(profile.expectations[0].backend, "mpi");
  EXPECT_EQ(profile.expectations[0].hosts, HostScope::single);
  lines.back() = "hosts = \"multi\"";
  lines[lines.size() - 2] = "backend = \"nccl\"";
  const Profile multi = parse_profile(with_expect(lines), "t.toml", test_catalog());
  EXPECT_EQ(multi.expectations[0].backend, "nccl");
  EXPECT_EQ(multi.expectations[0].hosts, HostScope::multi);
  const Profile any = parse_profile(with_expect(valid_lines()), "t.toml", test_catalog());
  EXPECT_FALSE(any.expectations[0].backend.has_value());
  EXPECT_FALSE(any.expectations[0].hosts.has_value());
}

TEST(ParseProfileErrors, ABadScopeNamesFileLineAndValue) {
  std::vector<std::string> lines = valid_lines();
  lines.push_back("backend = \"gloo\"");
  EXPECT_EQ(error_of(with_expect(lines)), "t.toml:11: backend \"gloo\" is not one of mpi, nccl");
  lines.back() = "hosts = \"two\"";
  EXPECT_EQ(error_of(with_expect(lines)), "t.toml:11: hosts \"two\" is not one of single, multi");
  lines.back() = "hosts = 2";
  EXPECT_EQ(error_of(with_expect(lines)),
            "t.toml:11: key \"hosts\" must be a string, got integer 2");
}

TEST(ParseProfile, AnSdcTableKeepsEachSettingAndItsLine) {
  const Profile profile = parse_profile(
      "[profile]\nname = \"t\"\n\n[sdc]\nduration_s = 60\nrepeats = 2\nmemory_fraction = 0.5\n",
      "t.toml", test_catalog());
  EXPECT_EQ(profile.sdc, (std::map<std::string, std::string>{
                             {"duration_s", "60"}, {"memory_fraction", "0.5"}, {"repeats", "2"}}));
  EXPECT_EQ(profile.sdc_lines.at("repeats"), 6);
}

TEST(ParseProfileErrors, AnUnknownSdcKeyNamesFileLineAndTheKnownOnes) {
  EXPECT_EQ(error_of("[profile]\nname = \"t\"\n[sdc]\nduraton_s = 3\n"),
            "t.toml:4: unknown key \"duraton_s\" in [sdc] (known: duration_s, memory_fraction, "
            "repeats, seed)");
  const std::string not_a_table = error_of("sdc = 3\n[profile]\nname = \"t\"\n");
  EXPECT_THAT(not_a_table, StartsWith("t.toml:1: \"sdc\" must be a table ([sdc]), got "));
}

}  // namespace
}  // namespace fabcheck
