// Tests of the Prometheus textfile writer: families and units, escaping of hostile label values,
// one series per label set, run gauges from the summary, and the atomic replacement on disk.
// (tests/report/check_report.py parses its output with a strict parser of the text format.)
#include "results/prometheus_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

Measurement busbw(double value, std::uint64_t size) {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = value;
  m.unit = "GB/s";
  m.host = "node-a,node-b";
  m.rank = -1;
  m.subject = "world";
  m.size_bytes = size;
  m.params["placement"] = "out";
  return m;
}

nlohmann::json summary(const std::string& verdict = "fail", const std::string& plan = "gate") {
  return {{"schema_version", 1},
          {"kind", "summary"},
          {"fabcheck_version", "0.1.0"},
          {"verdict", verdict},
          {"exit_code", verdict == "fail" ? 1 : 0},
          {"counts", {{"pass", 3}, {"warn", 1}, {"fail", 2}, {"waived", 1}, {"error", 0}}},
          {"probes",
           {{"run", {"coll.all_reduce", "storage.fsync_lat"}},
            {"waived", {{{"id", "gpu.p2p"}, {"reason", "no GPU"}}}},
            {"errored", {{{"id", "storage.fsync_lat"}, {"message", "disk full"}}}}}},
          {"hosts", {"node-a", "node-b"}},
          {"ranks", 2},
          {"plan", plan},
          {"profile", {{"name", "generic-cpu"}, {"path", "/p.toml"}}},
          {"started_utc", "2026-11-30T06:09:26Z"},
          {"finished_utc", "2026-11-30T06:10:00Z"},
          {"run_dir", "/runs/r1"}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int count_lines_starting(const std::string& text, const std::string& prefix) {
  int count = 0;
  for (const auto& line : lines_of(text)) count += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return count;
}

TEST(PrometheusWriter, BandwidthInBytesPerSecondWithEveryLabel) {
  const std::string text = render_prometheus({busbw(1.5, 1048576)}, {}, summary());
  EXPECT_THAT(text, HasSubstr("# TYPE fabcheck_bandwidth_bytes_per_second gauge\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_bandwidth_bytes_per_second{plan=\"gate\",probe=\"coll."
                              "all_reduce\",metric=\"busbw\",size=\"1048576\",subject=\"world\","
                              "placement=\"out\",host=\"node-a,node-b\"} 1500000000\n"));
}

TEST(PrometheusWriter, UnitsBecomeBaseUnitFamilies) {
  Measurement latency = busbw(12.5, 8);
  latency.metric = "time_us";
  latency.unit = "us";
  Measurement rate = busbw(400, 0);
  rate.probe = "fabric.ib_ports";
  rate.metric = "rate";
  rate.unit = "Gb/s";
  rate.size_bytes.reset();
  Measurement odd = busbw(3, 0);
  odd.unit = "frobs/s";
  odd.metric = "frobs";
  const std::string text = render_prometheus({latency, rate, odd}, {}, summary());
  EXPECT_THAT(text, HasSubstr("fabcheck_duration_seconds{"));
  // The value is in seconds now: the label says "time", not "time_us".
  EXPECT_THAT(text, HasSubstr("metric=\"time\",size=\"8\""));
  EXPECT_THAT(text, Not(HasSubstr("time_us")));
  EXPECT_THAT(text, HasSubstr("} 1.25e-05\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_link_rate_bits_per_second{plan=\"gate\",probe=\"fabric."
                              "ib_ports\",metric=\"rate\",subject=\"world\""));
  EXPECT_THAT(text, HasSubstr("} 400000000000\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE fabcheck_measurement_frobs_s gauge\n"));
}

TEST(PrometheusWriter, MetricLabelsLoseOnlyTheSuffixOfTheConvertedUnit) {
  Measurement steal = busbw(0.505, 0);
  steal.probe = "host.cpu";
  steal.metric = "steal_pct";
  steal.unit = "%";
  steal.size_bytes.reset();
  Measurement p99 = busbw(250, 4096);
  p99.probe = "storage.fsync_lat";
  p99.metric = "fsync_p99_us";
  p99.unit = "us";
  Measurement clock = busbw(1980, 0);
  clock.probe = "gpu.burn";
  clock.metric = "sm_clock_mhz";
  clock.unit = "MHz";
  clock.size_bytes.reset();
  Measurement kept = busbw(7, 0);  // "_us" names no unit of a count: kept as it is
  kept.metric = "late_us";
  kept.unit = "count";
  kept.size_bytes.reset();
  Measurement bare = busbw(3, 0);  // the suffix alone is no name to cut
  bare.metric = "_us";
  bare.unit = "us";
  bare.size_bytes.reset();
  const std::string text = render_prometheus({steal, p99, clock, kept, bare}, {}, summary());
  // 0.505 % is 0.00505 as a ratio, and {metric="steal"} > 0.05 is the query for 5 %.
  EXPECT_THAT(text, HasSubstr("fabcheck_ratio{plan=\"gate\",probe=\"host.cpu\",metric=\"steal\","));
  EXPECT_THAT(text, HasSubstr("} 0.00505\n"));
  EXPECT_THAT(text, HasSubstr("metric=\"fsync_p99\",size=\"4096\""));
  EXPECT_THAT(text, HasSubstr("} 0.00025\n"));
  EXPECT_THAT(
      text, HasSubstr("fabcheck_clock_hertz{plan=\"gate\",probe=\"gpu.burn\",metric=\"sm_clock\""));
  EXPECT_THAT(text, HasSubstr("} 1980000000\n"));
  EXPECT_THAT(
      text,
      HasSubstr("fabcheck_counted{plan=\"gate\",probe=\"coll.all_reduce\",metric=\"late_us\""));
  EXPECT_THAT(text, HasSubstr("metric=\"_us\""));
}

TEST(PrometheusWriter, OneHelpAndTypePerFamilyBeforeItsSamples) {
  std::vector<Measurement> measurements;
  for (std::uint64_t size = 8; size <= 8192; size *= 4) {
    measurements.push_back(busbw(1, size));
    Measurement time = busbw(5, size);
    time.metric = "time_us";
    time.unit = "us";
    measurements.push_back(time);  // interleaved with bandwidth: grouped by family on output
  }
  const std::string text = render_prometheus(measurements, {}, summary());
  EXPECT_EQ(count_lines_starting(text, "# TYPE fabcheck_bandwidth_bytes_per_second "), 1);
  EXPECT_EQ(count_lines_starting(text, "# HELP fabcheck_bandwidth_bytes_per_second "), 1);
  EXPECT_EQ(count_lines_starting(text, "# TYPE fabcheck_duration_seconds "), 1);
  // Contiguous groups: once another family starts, the first never comes back.
  std::vector<std::string> order;
  for (const auto& line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find_first_of("{ "));
    if (order.empty() || order.back() != name) order.push_back(name);
  }
  std::set<std::string> distinct(order.begin(), order.end());
  EXPECT_EQ(distinct.size(), order.size()) << text;
}

TEST(PrometheusWriter, HostileLabelValuesAreEscaped) {
  Measurement m = busbw(1, 64);
  m.host = "no\"de\\x\nend";
  m.subject = "/mnt/ck\"pt";
  const std::string text = render_prometheus({m}, {}, summary());
  EXPECT_THAT(text, HasSubstr("subject=\"/mnt/ck\\\"pt\""));
  EXPECT_THAT(text, HasSubstr("host=\"no\\\"de\\\\x\\nend\""));
  for (const auto& line : lines_of(text)) EXPECT_THAT(line, Not(HasSubstr("end\"} 1e+09x")));
  EXPECT_EQ(count_lines_starting(text, "end"), 0) << "a raw newline split a sample";
}

TEST(PrometheusWriter, InvalidUtf8BecomesReplacementCharacter) {
  Measurement m = busbw(1, 64);
  m.subject = std::string("gpu\xff\xfe", 5) + "\xc3\xa9";  // two bad bytes, then a valid é
  const std::string text = render_prometheus({m}, {}, summary());
  EXPECT_THAT(text, HasSubstr("subject=\"gpu\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\""));
}

TEST(PrometheusWriter, NonFiniteValuesUseTheFormatsSpelling) {
  Measurement nan = busbw(std::numeric_limits<double>::quiet_NaN(), 8);
  Measurement inf = busbw(std::numeric_limits<double>::infinity(), 16);
  const std::string text = render_prometheus({nan, inf}, {}, summary());
  EXPECT_THAT(text, HasSubstr("size=\"8\",subject=\"world\",placement=\"out\",host=\"node-a,"
                              "node-b\"} NaN\n"));
  EXPECT_THAT(text, HasSubstr("} +Inf\n"));
}

TEST(PrometheusWriter, SameLabelsTwiceKeepsTheFirstAndSaysSo) {
  const std::string text = render_prometheus({busbw(1, 64), busbw(2, 64)}, {}, summary());
  EXPECT_EQ(count_lines_starting(text, "fabcheck_bandwidth_bytes_per_second{"), 1);
  EXPECT_THAT(text, HasSubstr("} 1000000000\n"));
  EXPECT_THAT(text, HasSubstr("# fabcheck: 1 figure(s) left out"));
}

TEST(PrometheusWriter, PlacementAndRankKeepFiguresApart) {
  Measurement in = busbw(2, 64);
  in.params["placement"] = "in";
  Measurement rank0 = busbw(1, 64);
  rank0.host = "node-a";
  rank0.rank = 0;
  Measurement rank1 = rank0;
  rank1.rank = 1;
  const std::string text = render_prometheus({busbw(1, 64), in, rank0, rank1}, {}, summary());
  EXPECT_EQ(count_lines_starting(text, "fabcheck_bandwidth_bytes_per_second{"), 4) << text;
  EXPECT_THAT(text, Not(HasSubstr("left out")));
}

TEST(PrometheusWriter, WaivedAndErroredMeasurementsHaveNoSample) {
  Measurement waived = busbw(0, 64);
  waived.status = MeasurementStatus::waived;
  const std::string text = render_prometheus({waived}, {}, summary());
  EXPECT_THAT(text, Not(HasSubstr("fabcheck_bandwidth_bytes_per_second")));
  EXPECT_THAT(text, HasSubstr("fabcheck_probe_status{plan=\"gate\",probe=\"gpu.p2p\","
                              "status=\"waived\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_probe_status{plan=\"gate\",probe=\"storage.fsync_lat\","
                              "status=\"error\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_probe_status{plan=\"gate\",probe=\"coll.all_reduce\","
                              "status=\"ok\"} 1\n"));
}

TEST(PrometheusWriter, VerdictCountsAndTimesFromTheSummary) {
  const std::string text = render_prometheus({}, {}, summary("fail"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_verdict{plan=\"gate\",verdict=\"fail\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_verdict{plan=\"gate\",verdict=\"pass\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_verdict{plan=\"gate\",verdict=\"incomplete\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_exit_code{plan=\"gate\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_findings{plan=\"gate\",severity=\"fail\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_findings{plan=\"gate\",severity=\"warn\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_ranks{plan=\"gate\"} 2\n"));
  // 2026-11-30T06:09:26Z by hand: 56 years with 14 leap days to 2026-01-01 (20454 days), 333 days
  // more to November 30th (20787), then 6 h 9 min 26 s.
  EXPECT_THAT(text, HasSubstr("fabcheck_run_started_timestamp_seconds{plan=\"gate\"} " +
                              std::to_string(20787LL * 86400 + 6 * 3600 + 9 * 60 + 26) + "\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_finished_timestamp_seconds{plan=\"gate\"} " +
                              std::to_string(20787LL * 86400 + 6 * 3600 + 10 * 60) + "\n"));
  // Neither the host list nor the run folder is a label (a new series each run): a count instead.
  EXPECT_THAT(text, HasSubstr("fabcheck_run_info{plan=\"gate\",version=\"0.1.0\",profile=\"generic-"
                              "cpu\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_hosts{plan=\"gate\"} 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("/runs/r1")));
}

TEST(PrometheusWriter, UnfinishedRunHasNoFinishTimeAndProbesPlanByDefault) {
  nlohmann::json early = summary("incomplete");
  early["finished_utc"] = nullptr;
  early.erase("plan");
  const std::string text = render_prometheus({}, {}, early);
  EXPECT_THAT(text, Not(HasSubstr("fabcheck_run_finished_timestamp_seconds")));
  EXPECT_THAT(text, HasSubstr("fabcheck_run_verdict{plan=\"probes\",verdict=\"incomplete\"} 1\n"));
  EXPECT_EQ(prometheus_file_name(early), "fabcheck_probes.prom");
  EXPECT_EQ(prometheus_file_name(summary("pass", "acceptance")), "fabcheck_acceptance.prom");
  EXPECT_EQ(prometheus_file_name(summary("pass", "../x y")), "fabcheck____x_y.prom");
}

TEST(PrometheusWriter, FindingsCountedPerSubjectAndSeverity) {
  Finding slow;
  slow.severity = Severity::fail;
  slow.probe = "coll.all_reduce";
  slow.metric = "busbw";
  slow.subject = "world";
  slow.host = "node-a";
  Finding slower = slow;
  slower.size_bytes = 64;
  Finding ok = slow;
  ok.severity = Severity::pass;
  const std::string text = render_prometheus({}, {slow, slower, ok}, summary());
  EXPECT_THAT(text,
              HasSubstr("fabcheck_findings{plan=\"gate\",probe=\"coll.all_reduce\",metric="
                        "\"busbw\",subject=\"world\",host=\"node-a\",severity=\"fail\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("host=\"node-a\",severity=\"pass\"} 1\n"));
}

class PrometheusFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("fabcheck_prom_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  fs::path dir_;
};

TEST_F(PrometheusFileTest, ReplacesByRenameSoAReaderNeverSeesHalfAFile) {
  const fs::path file = dir_ / "fabcheck_gate.prom";
  write_prometheus(file, {busbw(1, 64)}, {}, summary("pass"));
  const std::string first = read(file);
  // A reader that opened the old file (node_exporter mid-scrape) keeps reading all of it.
  std::ifstream reader(file);
  write_prometheus(file, {busbw(2, 64), busbw(3, 128)}, {}, summary("fail"));
  std::stringstream old_text;
  old_text << reader.rdbuf();
  EXPECT_EQ(old_text.str(), first);
  EXPECT_EQ(read(file), render_prometheus({busbw(2, 64), busbw(3, 128)}, {}, summary("fail")));
  // Nothing else left in the directory, and readable by node_exporter's user.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST_F(PrometheusFileTest, AMissingDirectoryThrowsNamingItAndLeavesNothing) {
  const fs::path file = dir_ / "absent" / "metrics.prom";
  try {
    write_prometheus(file, {}, {}, summary());
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr((dir_ / "absent").string()));
  }
  EXPECT_FALSE(fs::exists(file));
}

TEST_F(PrometheusFileTest, AFailedRenameKeepsTheOldFileAndRemovesTheTemporary) {
  const fs::path file = dir_ / "metrics.prom";
  write_prometheus(file, {busbw(1, 64)}, {}, summary("pass"));
  const std::string first = read(file);
  const fs::path blocked = dir_ / "blocked.prom";
  fs::create_directories(blocked / "inside");  // rename over a non-empty directory fails
  EXPECT_THROW(write_prometheus(blocked, {}, {}, summary()), std::runtime_error);
  EXPECT_EQ(read(file), first);
  int entries = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    ++entries;
    EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".tmp")));
  }
  EXPECT_EQ(entries, 2);
}

}  // namespace
}  // namespace fabcheck
