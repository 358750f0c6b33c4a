// Each reporter against the same recorded event sequence: the console (normal, quiet, progress as
// lines and in place), JSON lines, and the run directory's files; the plan and a rank's problems as
// the console and JSON lines say them; the collectives' console table and the estimate of the time
// left.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/coll/engine.hpp"
#include "bench/coll/register.hpp"
#include "bench/coll/sweep_table.hpp"
#include "bench/core/console_reporter.hpp"
#include "bench/core/json_lines_reporter.hpp"
#include "bench/core/plan_text.hpp"
#include "bench/core/run_dir_reporters.hpp"
#include "results/run_writer.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

// A captured FILE*: what was written to it so far.
class Capture {
 public:
  Capture() : file_(std::tmpfile()) {}
  ~Capture() { std::fclose(file_); }
  std::FILE* file() const { return file_; }
  std::string text() const {
    std::fflush(file_);
    std::string text;
    std::rewind(file_);
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0) text.append(buffer, n);
    return text;
  }

 private:
  std::FILE* file_;
};

Measurement figure(const std::string& metric, double value, std::uint64_t size) {
  Measurement m;
  m.probe = "coll.test";
  m.metric = metric;
  m.value = value;
  m.unit = metric == "time_us" ? "us" : metric == "wrong_elements" ? "count" : "GB/s";
  m.subject = "world";
  m.host = "node01,node02";
  m.rank = -1;
  m.size_bytes = size;
  m.params = {{"count", std::to_string(size / 4)}, {"placement", "out"}, {"type", "float"}};
  m.time_utc = "2024-01-01T00:00:00Z";
  return m;
}

// A time with its samples' statistics: median 10, p99 76000.5, max 94000.25 (one stalled sample).
Measurement timed(Measurement m) {
  SampleStats stats;
  stats.count = 20;
  stats.min = 9;
  stats.median = m.value;
  stats.p99 = 76000.5;
  stats.max = 94000.25;
  m.stats = stats;
  return m;
}

Finding judged(Severity severity, const std::string& subject, const std::string& host,
               const std::string& message) {
  Finding f;
  f.severity = severity;
  f.probe = "coll.test";
  f.metric = "busbw";
  f.subject = subject;
  f.host = host;
  f.size_bytes = 1024;
  f.message = message;
  return f;
}

// The recorded run: a collective with two sizes judged WARN and FAIL, then a waived probe; the
// clock (for the progress) advances as the test says.
struct RecordedRun {
  ProbeInfo collective{.id = "coll.test", .console_table = [](const std::vector<Measurement>& ms) {
                         return sweep_console_table(find_collective("all_reduce"), ms);
                       }};
  ProbeInfo waived{.id = "test.waived"};
  std::vector<Measurement> measurements = {
      timed(figure("time_us", 10, 1024)), figure("algbw", 0.1, 1024),
      figure("busbw", 0.1, 1024),         figure("wrong_elements", 0, 1024),
      figure("time_us", 20, 4096),        figure("algbw", 0.2, 4096),
      figure("busbw", 0.2, 4096),         figure("wrong_elements", 0, 4096)};
  std::vector<Finding> findings = {
      judged(Severity::warn, "world", "node01,node02", "busbw 0.2 GB/s below 0.3 (warn)"),
      judged(Severity::fail, "node02", "node02", "busbw 0.1 GB/s below 0.15 (fail)"),
      judged(Severity::pass, "world", "node01,node02", "busbw fine"),
  };
  Finding waived_finding = [] {
    Finding f;
    f.severity = Severity::waived;
    f.probe = "test.waived";
    f.message = "test.waived waived: no widget";
    return f;
  }();
  nlohmann::json in_progress = {{"verdict", "incomplete"}, {"kind", "summary"}};
  nlohmann::json final_summary = {
      {"verdict", "fail"},
      {"kind", "summary"},
      {"counts", {{"pass", 1}, {"warn", 1}, {"fail", 1}, {"waived", 1}, {"error", 0}}},
      {"run_dir", "/runs/r1"},
      {"timing",
       {{"wall_s", 12.5},
        {"startup_s", 1.0},
        {"probes_s", 11.0},
        {"judgement_s", 0.01},
        {"evidence_s", 0.0},
        {"writing_s", 0.02}}}};
  double now = 100;

  void play(Reporter& r) {
    RunStart start;
    start.probes = {&collective, &waived};
    start.hosts = {"node01", "node02"};
    start.ranks = 4;
    start.run_dir = "/runs/r1";
    start.profile = "test";
    start.profile_reason = "given";
    start.version = "9.9";
    r.run_started(start);
    r.summary(in_progress, false);
    const ProbeStart first{&collective, 1, 2};
    r.probe_started(first);
    r.note(first, "# coll.test: backend mpi, 4 ranks\n");
    now = 101;
    r.progress(first, measurements[0]);
    now = 102;
    r.progress(first, measurements[1]);
    now = 107;
    r.progress(first, measurements[4]);
    now = 110;
    r.measurements(collective, measurements);
    for (const auto& f : findings) r.finding(f);
    r.probe_finished({&collective, 1, 2, ProbeOutcome::ran, "", 10.0});
    r.summary(in_progress, false);
    const ProbeStart second{&waived, 2, 2};
    r.probe_started(second);
    r.finding(waived_finding);
    r.probe_finished({&waived, 2, 2, ProbeOutcome::waived, "no widget", 0.5});
    r.summary(in_progress, false);
    std::vector<Finding> all = findings;
    all.push_back(waived_finding);
    r.results_complete(measurements, all);
    r.summary(final_summary, true);
    RunEnd end;
    end.verdict = Verdict::fail;
    end.exit_code = 1;
    end.findings = &all;
    end.summary = &final_summary;
    r.run_finished(end);
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from < text.size()) {
    const auto end = text.find('\n', from);
    lines.push_back(text.substr(from, end == std::string::npos ? std::string::npos : end - from));
    if (end == std::string::npos) break;
    from = end + 1;
  }
  return lines;
}

// Where `needle` is in `text`, failing the test when it is not.
std::size_t at(const std::string& text, const std::string& needle) {
  const auto where = text.find(needle);
  EXPECT_NE(where, std::string::npos) << "missing: " << needle << "\nin:\n" << text;
  return where;
}

TEST(ConsoleReporter, TablesFindingsThenTheFindingsGroupedAndTheVerdict) {
  RecordedRun run;
  Capture out, err;
  auto console = make_console_reporter({.out = out.file(), .err = err.file()});
  run.play(*console);
  const std::string text = out.text();
  const std::size_t header = at(text,
                                "# fabcheck 9.9: 4 rank(s) on 2 host(s), results in /runs/r1\n"
                                "# profile test (given)\n\n");
  const std::size_t note = at(text, "# coll.test: backend mpi, 4 ranks\n");
  const std::size_t table = at(text, sweep_table_header({Placement::out_of_place}));
  at(text,
     "         1024          256   float    sum    -1     10.00  76000.50    0.10    0.10      "
     "0\n");
  // A time without samples (a record written before they were kept): no p99 to show.
  at(text,
     "         4096         1024   float    sum    -1     20.00         -    0.20    0.20      "
     "0\n");
  // nccl-tests' closing lines: the wrong elements of every size, the mean busbw (0.1 and 0.2).
  at(text,
     "# #wrong (elements unlike the expected result, every size and rank): 0 OK\n"
     "# Avg bus bandwidth    : 0.150 GB/s (mean of 2 row(s))\n");
  const std::size_t warn = at(text, "WARN   busbw 0.2 GB/s below 0.3 (warn)\n");
  const std::size_t waived = at(text, "# test.waived: WAIVED (no widget)\n\n");
  const std::size_t grouped =
      at(text,
         "# findings by severity\n"
         "FAIL (1)\n"
         "  node02  [coll.test busbw 1KiB] busbw 0.1 GB/s below 0.15 (fail)\n"
         "WARN (1)\n"
         "  world (node01,node02)  [coll.test busbw 1KiB] busbw 0.2 GB/s below 0.3 (warn)\n"
         "WAIVED (1)\n"
         "  test.waived: no widget\n\n");
  const std::size_t verdict =
      at(text,
         "verdict: FAIL (1 pass, 1 warn, 1 fail, 1 waived, 0 error); drain: node02 (coll.test: "
         "busbw 0.1 GB/s below 0.15 (fail)); exit code 1\n"
         "results: /runs/r1\n"
         "time: 12.5 s (start-up 1.0, probes 11.0, judgement 0.01, evidence 0.0, "
         "writing 0.02)\n");
  EXPECT_LT(header, note);
  EXPECT_LT(note, table);
  EXPECT_LT(table, warn);
  EXPECT_LT(warn, waived);
  EXPECT_LT(waived, grouped);
  EXPECT_LT(grouped, verdict);
  EXPECT_EQ(text.find("PASS "), std::string::npos) << "a PASS is counted, not listed\n" << text;
  EXPECT_EQ(text.find("test.waived waived:"), std::string::npos)
      << "a waiver is said once, without the doubled word\n"
      << text;
  EXPECT_EQ(err.text(), "") << "no progress asked for";
}

// A probe that ran with figures waived on two ranks of a node: nothing after its table, one merged
// line at the end.
TEST(ConsoleReporter, WaiversOfAProbeThatRanAreSaidOnceAtTheEnd) {
  ProbeInfo numa{.id = "host.numa"};
  Capture out, err;
  auto console = make_console_reporter({.out = out.file(), .err = err.file()});
  RunStart start;
  start.probes = {&numa};
  start.hosts = {"node01"};
  start.ranks = 2;
  start.run_dir = "/runs/r2";
  console->run_started(start);
  console->probe_started({&numa, 1, 1});
  std::vector<Finding> all;
  for (const int rank : {0, 1}) {
    Finding waived;
    waived.severity = Severity::waived;
    waived.probe = "host.numa";
    waived.host = "node01";
    waived.rank = rank;
    waived.message = "host.numa on node01 waived: built without hwloc";
    all.push_back(waived);
    console->finding(waived);
  }
  console->probe_finished({&numa, 1, 1, ProbeOutcome::ran, "", 0.1});
  RunEnd end;
  end.findings = &all;
  console->run_finished(end);
  const std::string text = out.text();
  EXPECT_NE(text.find("# profile  ()\n\n\n"
                      "# findings by severity\n"
                      "WAIVED (2)\n"
                      "  host.numa: built without hwloc (ranks 0-1 on node01)\n\n"
                      "verdict: PASS (0 pass, 0 warn, 0 fail, 2 waived, 0 error); exit code 0\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("WAIVED host.numa"), std::string::npos) << text;
}

TEST(ConsoleReporter, QuietPrintsOnlyTheVerdictLineWithTheNodeToDrain) {
  RecordedRun run;
  Capture out, err;
  auto console = make_console_reporter(
      {.out = out.file(), .err = err.file(), .quiet = true, .progress = ProgressStyle::lines});
  run.play(*console);
  EXPECT_EQ(out.text(),
            "verdict: FAIL (1 pass, 1 warn, 1 fail, 1 waived, 0 error); drain: node02 (coll.test: "
            "busbw 0.1 GB/s below 0.15 (fail)); exit code 1\n");
  EXPECT_EQ(err.text(), "");
}

TEST(ConsoleReporter, ProgressAsPlainLinesIsNotChatty) {
  RecordedRun run;
  Capture out, err;
  auto console = make_console_reporter({.out = out.file(),
                                        .err = err.file(),
                                        .progress = ProgressStyle::lines,
                                        .line_interval_s = 5,
                                        .clock = [&run] { return run.now; }});
  run.play(*console);
  // The sizes at 101 and 102 s come within 5 s of the start line; the one at 107 s does not.
  const std::vector<std::string> expected = {
      "fabcheck [1/2] coll.test started, 0:00 elapsed, time left unknown",
      "fabcheck [1/2] coll.test 4KiB, 0:07 elapsed, time left unknown",
      "fabcheck [1/2] coll.test ran in 10.0 s, 0:10 elapsed, ~0:10 left",
      "fabcheck [2/2] test.waived started, 0:10 elapsed, ~0:10 left",
      "fabcheck [2/2] test.waived waived in 0.5 s, 0:10 elapsed, ~0:00 left",
  };
  std::vector<std::string> progress;
  for (const auto& line : lines_of(out.text())) {
    if (line.starts_with("fabcheck [")) progress.push_back(line);
  }
  EXPECT_EQ(progress, expected) << out.text();
  // On stdout, among the tables in their order (under mpirun stderr reaches the terminal apart).
  EXPECT_LT(out.text().find("fabcheck [1/2] coll.test started"), out.text().find("# coll.test:"));
  EXPECT_LT(out.text().find("# Avg bus bandwidth"), out.text().find("coll.test ran in"));
  EXPECT_EQ(err.text(), "") << "plain progress lines go to stdout";
}

// A probe with a live table and steps, as run_collective_sweep and the runner hand them on: each
// size's row is printed when the next size begins (before the probe ends), both placements side by
// side; the progress line counts the sizes; the clock's ticks print a line when nothing else did
// for line_interval_s, and none after the run ended.
TEST(ConsoleReporter, LiveRowsAsEachSizeEndsWithStepsAndTicks) {
  double now = 100;
  ProbeInfo probe{.id = "coll.test", .live_table = [] {
                    return make_sweep_live_table(find_collective("all_reduce"));
                  }};
  const auto placed = [](Measurement m, const char* placement) {
    m.params["placement"] = placement;
    return m;
  };
  const std::vector<Measurement> size_4k = {figure("time_us", 20, 4096),
                                            figure("algbw", 0.2, 4096),
                                            figure("busbw", 0.2, 4096),
                                            figure("wrong_elements", 0, 4096),
                                            placed(figure("time_us", 30, 4096), "in"),
                                            placed(figure("algbw", 0.3, 4096), "in"),
                                            placed(figure("busbw", 0.3, 4096), "in"),
                                            placed(figure("wrong_elements", 2, 4096), "in")};
  Capture out, err;
  auto console = make_console_reporter({.out = out.file(),
                                        .err = err.file(),
                                        .progress = ProgressStyle::lines,
                                        .line_interval_s = 5,
                                        .clock = [&now] { return now; }});
  RunStart start;
  start.probes = {&probe};
  start.hosts = {"node01", "node02"};
  start.ranks = 2;
  console->run_started(start);
  const ProbeStart in_flight{&probe, 1, 1};
  console->probe_started(in_flight);
  console->step(in_flight, {0, 2, "size", "4KiB"});
  for (const auto& m : size_4k) console->progress(in_flight, m);
  EXPECT_EQ(out.text().find("4096"), std::string::npos) << "a row before its size ended";
  now = 106;
  console->step(in_flight, {1, 2, "size", "8KiB"});
  const std::string row_4k =
      "         4096         1024   float    sum    -1     20.00         -    0.20    0.20      0"
      "     30.00         -    0.30    0.30      2\n";
  const std::string after_first = out.text();
  at(after_first, sweep_table_header({Placement::out_of_place, Placement::in_place}) + row_4k);
  at(after_first, "fabcheck [1/1] coll.test size 2 of 2 (8KiB), 0:06 elapsed, time left unknown\n");
  EXPECT_EQ(after_first.find("#wrong (elements"), std::string::npos) << "closed too early";
  // Ticks: none prints within 5 s of the last line; the one at 111.5 s does.
  now = 110;
  console->tick(in_flight);
  EXPECT_EQ(out.text(), after_first);
  now = 111.5;
  console->tick(in_flight);
  at(out.text(), "fabcheck [1/1] coll.test size 2 of 2 (8KiB), 0:12 elapsed, time left unknown\n");
  // The last size's row and the closing come with the gathered measurements.
  std::vector<Measurement> size_8k = {figure("time_us", 40, 8192), figure("algbw", 0.4, 8192),
                                      figure("busbw", 0.4, 8192),
                                      figure("wrong_elements", 0, 8192)};
  for (const auto& m : size_8k) console->progress(in_flight, m);
  console->step(in_flight, {2, 2, "size", ""});
  std::vector<Measurement> every_rank = size_4k;
  every_rank.insert(every_rank.end(), size_8k.begin(), size_8k.end());
  console->measurements(probe, every_rank);
  const std::string text = out.text();
  at(text,
     "         8192         2048   float    sum    -1     40.00         -    0.40    0.40      0"
     "         -         -       -       -      -\n"
     "# #wrong (elements unlike the expected result, every size and rank): 2 WRONG\n"
     "# Avg bus bandwidth    : 0.300 GB/s (mean of 3 row(s))\n");
  EXPECT_EQ(text.find(row_4k), text.rfind(row_4k)) << "a row printed twice\n" << text;
  console->probe_finished({&probe, 1, 1, ProbeOutcome::ran, "", 12.0});
  std::vector<Finding> none;
  RunEnd end;
  end.findings = &none;
  console->run_finished(end);
  const std::string ended = out.text();
  now = 200;
  console->tick(in_flight);
  EXPECT_EQ(out.text(), ended) << "a tick after the end";
}

TEST(ConsoleReporter, ProgressOnATerminalIsRedrawnInPlaceAndClearedBeforeOtherOutput) {
  RecordedRun run;
  Capture both;  // stdout and stderr on one terminal
  auto console = make_console_reporter({.out = both.file(),
                                        .err = both.file(),
                                        .progress = ProgressStyle::in_place,
                                        .clock = [&run] { return run.now; }});
  run.play(*console);
  const std::string text = both.text();
  // The first line drawn, then cleared before the note is printed.
  at(text, "\r\033[K[1/2] coll.test started, 0:00 elapsed, time left unknown\r\033[K# coll.test:");
  // Each size redrawn (0.1 s apart at least), never ending a line.
  at(text,
     "\r\033[K[1/2] coll.test 1KiB, 0:01 elapsed, time left unknown\r\033[K[1/2] coll.test "
     "1KiB, 0:02 elapsed");
  EXPECT_EQ(text.find("left\n"), std::string::npos) << text;
  // The last thing written: the console's end, after the line was cleared.
  EXPECT_TRUE(text.ends_with("writing 0.02)\n")) << text;
}

TEST(JsonLinesReporter, EveryLineParsesAndTheEventsComeInOrder) {
  RecordedRun run;
  Capture out;
  auto json = make_json_lines_reporter(out.file());
  run.play(*json);
  std::vector<std::string> events;
  std::vector<nlohmann::json> parsed;
  for (const auto& line : lines_of(out.text())) {
    ASSERT_FALSE(line.empty());
    const auto object = nlohmann::json::parse(line);  // throws: the test fails
    EXPECT_EQ(object.at("schema_version"), 1) << line;
    EXPECT_EQ(object.at("kind"), "event") << line;
    events.push_back(object.at("event").get<std::string>());
    parsed.push_back(object);
  }
  const std::vector<std::string> expected = {
      "run_started",    "probe_started", "note",           "progress",      "progress",
      "progress",       "measurement",   "measurement",    "measurement",   "measurement",
      "measurement",    "measurement",   "measurement",    "measurement",   "finding",
      "finding",        "finding",       "probe_finished", "probe_started", "finding",
      "probe_finished", "run_finished"};
  EXPECT_EQ(events, expected) << out.text();
  EXPECT_EQ(parsed[0]["probes"], nlohmann::json({"coll.test", "test.waived"}));
  EXPECT_EQ(parsed[1]["index"], 1);
  // The root's figures as they come, then again once gathered.
  EXPECT_EQ(parsed[3]["probe"], "coll.test");
  EXPECT_EQ(parsed[3]["measurement"], parsed[6]["measurement"]);
  EXPECT_EQ(parsed[5]["measurement"], parsed[10]["measurement"]);
  EXPECT_EQ(parsed[6]["measurement"]["metric"], "time_us");
  EXPECT_EQ(parsed[6]["measurement"]["kind"], "measurement");
  EXPECT_EQ(parsed[15]["finding"]["severity"], "fail");
  EXPECT_EQ(parsed[20]["outcome"], "waived");
  EXPECT_EQ(parsed[20]["reason"], "no widget");
  EXPECT_EQ(parsed.back()["verdict"], "fail");
  EXPECT_EQ(parsed.back()["exit_code"], 1);
  EXPECT_EQ(parsed.back()["counts"]["fail"], 1);
  EXPECT_TRUE(parsed.back()["incomplete_reason"].is_null());
}

// A probe's steps as events: each size as it begins, then the last ended (next empty).
TEST(JsonLinesReporter, StepsAreEvents) {
  Capture out;
  auto json = make_json_lines_reporter(out.file());
  const ProbeInfo probe{.id = "coll.test"};
  const ProbeStart started{&probe, 1, 1};
  json->step(started, {0, 2, "size", "4KiB"});
  json->step(started, {2, 2, "size", ""});
  json->tick(started);  // no event: a consumer has its own clock
  const auto lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 2u) << out.text();
  const auto first = nlohmann::json::parse(lines[0]);
  const auto last = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(first["event"], "step");
  EXPECT_EQ(first["probe"], "coll.test");
  EXPECT_EQ(first["done"], 0);
  EXPECT_EQ(first["count"], 2);
  EXPECT_EQ(first["unit"], "size");
  EXPECT_EQ(first["next"], "4KiB");
  EXPECT_EQ(last["done"], 2);
  EXPECT_EQ(last["next"], "");
}

// A crash or an interrupt loses at most the size in flight: the root's figures reach
// measurements.jsonl as it emits them (progress), each once when the probe is gathered.
TEST(RunDirectoryReporters, EachFigureReachesTheFileWhenEmittedAndOnceWhenGathered) {
  testing::TempDir dir;
  const ProbeInfo probe{.id = "coll.test"};
  const ProbeStart started{&probe, 1, 1};
  const std::vector<Measurement> sizes = {figure("time_us", 10, 1024), figure("busbw", 0.1, 1024),
                                          figure("time_us", 20, 4096)};
  const auto out = dir.path() / "run";
  {
    RunWriter writer(out);
    auto reporters = run_directory_reporters(writer, dir.path());
    for (auto& r : reporters) r->probe_started(started);
    for (auto& r : reporters) r->progress(started, sizes[0]);
    for (auto& r : reporters) r->progress(started, sizes[1]);
    // Interrupted here: the two finished figures are on disk already.
    EXPECT_EQ(lines_of(testing::read_whole_file(out / "measurements.jsonl")).size(), 2u);
    for (auto& r : reporters) r->progress(started, sizes[2]);
    // Gathered: the root's three again and another rank's record, which is new.
    Measurement other = figure("wrong_elements", 0, 4096);
    other.rank = 1;
    std::vector<Measurement> every_rank = sizes;
    every_rank.push_back(other);
    for (auto& r : reporters) r->measurements(probe, every_rank);
    const auto lines = lines_of(testing::read_whole_file(out / "measurements.jsonl"));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(nlohmann::json::parse(lines[0])["metric"], "time_us");
    EXPECT_EQ(nlohmann::json::parse(lines[1])["metric"], "busbw");
    EXPECT_EQ(nlohmann::json::parse(lines[2])["size_bytes"], 4096);
    EXPECT_EQ(nlohmann::json::parse(lines[3])["metric"], "wrong_elements");
    // The next probe's figures are its own, even where they equal an earlier one's.
    for (auto& r : reporters) r->probe_started(started);
    for (auto& r : reporters) r->measurements(probe, {sizes[0]});
    EXPECT_EQ(lines_of(testing::read_whole_file(out / "measurements.jsonl")).size(), 5u);
  }
}

TEST(RunDirectoryReporters, WriteTheRecordsAndEverySummary) {
  testing::TempDir dir;
  RecordedRun run;
  {
    RunWriter writer(dir.path() / "run");
    auto reporters = run_directory_reporters(writer, dir.path());
    struct All final : Reporter {
      std::vector<std::unique_ptr<Reporter>>& each;
      explicit All(std::vector<std::unique_ptr<Reporter>>& e) : each(e) {}
      void run_started(const RunStart& x) override {
        for (auto& r : each) r->run_started(x);
      }
      void probe_started(const ProbeStart& x) override {
        for (auto& r : each) r->probe_started(x);
      }
      void measurements(const ProbeInfo& p, const std::vector<Measurement>& m) override {
        for (auto& r : each) r->measurements(p, m);
      }
      void finding(const Finding& f) override {
        for (auto& r : each) r->finding(f);
      }
      void probe_finished(const ProbeEnd& x) override {
        for (auto& r : each) r->probe_finished(x);
      }
      void results_complete(const std::vector<Measurement>& m,
                            const std::vector<Finding>& f) override {
        for (auto& r : each) r->results_complete(m, f);
      }
      void summary(const nlohmann::json& s, bool final) override {
        for (auto& r : each) r->summary(s, final);
      }
      void run_finished(const RunEnd& x) override {
        for (auto& r : each) r->run_finished(x);
      }
    } all(reporters);
    run.play(all);
  }
  const auto out = dir.path() / "run";
  const auto measurements = lines_of(testing::read_whole_file(out / "measurements.jsonl"));
  ASSERT_EQ(measurements.size(), run.measurements.size());
  EXPECT_EQ(nlohmann::json::parse(measurements[4])["metric"], "time_us");
  EXPECT_EQ(nlohmann::json::parse(measurements[4])["size_bytes"], 4096);
  const auto findings = lines_of(testing::read_whole_file(out / "findings.jsonl"));
  ASSERT_EQ(findings.size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(findings[3])["severity"], "waived");
  // The final summary, as given; metrics.prom (and the collector's copy) and junit.xml after it.
  EXPECT_EQ(nlohmann::json::parse(testing::read_whole_file(out / "summary.json")),
            run.final_summary);
  const std::string prom = testing::read_whole_file(out / "metrics.prom");
  EXPECT_NE(prom.find("coll.test"), std::string::npos) << prom;
  EXPECT_TRUE(std::filesystem::exists(out / "junit.xml"));
  bool collector_copy = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    collector_copy |= entry.path().extension() == ".prom";
  EXPECT_TRUE(collector_copy);
}

// A plan of two probes, one waived, on a job of 4 ranks on 2 hosts.
struct RecordedPlan {
  JobShape job;
  PlanEstimate estimate;
  RecordedPlan() {
    job.ranks = 4;
    job.hosts = 2;
    job.ranks_per_host = 2;
    job.backend = "mpi";
    job.mpi = true;
    PlannedProbe collective;
    collective.id = "coll.test";
    collective.seconds = 12.5;
    collective.knobs = "7 sizes";
    PlannedProbe waived;
    waived.id = "test.waived";
    waived.waived = "no widget";
    estimate.probes = {collective, waived};
  }
  RunPlan plan(bool alone) const { return {"gate", &job, &estimate, nullptr, alone}; }
};

TEST(ConsoleReporter, ThePlanBeforeTheRunUnlessQuietButAloneWhatever) {
  const RecordedPlan recorded;
  const std::string printed = format_plan("gate", recorded.job, recorded.estimate, nullptr) + "\n";
  for (const bool quiet : {false, true}) {
    for (const bool alone : {false, true}) {
      Capture out, err;
      auto console = make_console_reporter({.out = out.file(), .err = err.file(), .quiet = quiet});
      console->plan(recorded.plan(alone));
      EXPECT_EQ(out.text(), quiet && !alone ? "" : printed) << quiet << alone;
      EXPECT_EQ(err.text(), "");
    }
  }
}

TEST(JsonLinesReporter, ThePlanIsOneLineOnlyAsTheWholeOutputOfADryRun) {
  const RecordedPlan recorded;
  Capture run_out, dry_out;
  make_json_lines_reporter(run_out.file())->plan(recorded.plan(false));
  EXPECT_EQ(run_out.text(), "") << "a run's stdout is its events";
  make_json_lines_reporter(dry_out.file())->plan(recorded.plan(true));
  const auto lines = lines_of(dry_out.text());
  ASSERT_EQ(lines.size(), 1u) << dry_out.text();
  nlohmann::json expected = plan_estimate_json(recorded.estimate, nullptr);
  expected["kind"] = "plan";
  expected["plan"] = "gate";
  EXPECT_EQ(lines[0], expected.dump());
}

TEST(ConsoleAndJsonLines, ARanksProblemIsOneLineOnItsStderr) {
  const RunProblem problem{ProblemKind::probe_failed, "rank 1 (node02): coll.test: it broke"};
  Capture console_out, console_err, json_out, json_err;
  make_console_reporter({.out = console_out.file(), .err = console_err.file()})->problem(problem);
  make_json_lines_reporter(json_out.file(), json_err.file())->problem(problem);
  EXPECT_EQ(console_err.text(), "fabcheck: rank 1 (node02): coll.test: it broke\n");
  EXPECT_EQ(json_err.text(), console_err.text());
  EXPECT_EQ(console_out.text(), "");
  EXPECT_EQ(json_out.text(), "");
}

TEST(ConsoleReporter, AProblemClearsTheProgressLineDrawnInPlaceFirst) {
  RecordedRun run;
  Capture both;
  auto console = make_console_reporter({.out = both.file(),
                                        .err = both.file(),
                                        .progress = ProgressStyle::in_place,
                                        .clock = [&run] { return run.now; }});
  RunStart start;
  start.probes = {&run.collective};
  console->run_started(start);
  console->probe_started({&run.collective, 1, 1});
  console->problem({ProblemKind::probe_failed, "rank 0 (node01): coll.test: it broke"});
  EXPECT_TRUE(both.text().ends_with(
      "time left unknown\r\033[Kfabcheck: rank 0 (node01): coll.test: it broke\n"))
      << both.text();
}

TEST(SweepConsoleTable, RowsFromTheGatheredFiguresAndOthersInTheGenericTable) {
  RecordedRun run;
  std::vector<Measurement> all = run.measurements;
  Measurement error;
  error.probe = "coll.test";
  error.metric = "error";
  error.status = MeasurementStatus::error;
  error.message = "rank 1 lost";
  error.host = "node02";
  error.rank = 1;
  all.push_back(error);
  const std::string table = sweep_console_table(find_collective("all_reduce"), all);
  SweepRow row;
  row.shape = {4096, 1024};
  row.time_us.median = 20;
  row.algbw_gbps = 0.2;
  row.busbw_gbps = 0.2;
  row.placement = Placement::out_of_place;
  const std::string second = sweep_table_row(find_collective("all_reduce"), "float", "sum",
                                             {Placement::out_of_place}, {&row});
  EXPECT_EQ(second,
            "         4096         1024   float    sum    -1     20.00         -    0.20    0.20   "
            "   0\n");
  const auto lines = lines_of(table);
  ASSERT_GE(lines.size(), 6u) << table;
  // Three header lines, the 1 KiB row, then this one.
  EXPECT_EQ(lines[4] + "\n", second) << table;
  EXPECT_NE(table.find("rank 1 lost"), std::string::npos) << table;
}

TEST(EstimatedRemaining, FromThePlanWhereGivenElseFromTheProbesFinished) {
  // Nothing finished, no estimate: unknown.
  EXPECT_FALSE(estimate_remaining_s({}, {}, 3, 0, 1.0));
  // Two of four finished in 10 and 20 s: 15 s each for the two left, less the 5 s run so far.
  EXPECT_DOUBLE_EQ(*estimate_remaining_s({}, {10, 20}, 4, 2, 5.0), 25.0);
  // Estimates from the plan win; a probe without one (0) takes the mean.
  EXPECT_DOUBLE_EQ(*estimate_remaining_s({0, 0, 60, 0}, {10, 20}, 4, 2, 5.0), 55.0 + 15.0);
  // A probe running past its estimate counts 0, not less.
  EXPECT_DOUBLE_EQ(*estimate_remaining_s({8}, {}, 1, 0, 30.0), 0.0);
  EXPECT_EQ(format_duration(7.4), "0:07");
  EXPECT_EQ(format_duration(760), "12:40");
  EXPECT_EQ(format_duration(3723), "1:02:03");
}

}  // namespace
}  // namespace fabcheck
