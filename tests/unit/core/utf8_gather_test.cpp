// Bytes that are not UTF-8 (a kernel-log line, a host name, a storage path) through the gather
// between ranks and every JSON text rank 0 writes of them: U+FFFD in the files, never a throw
// (nlohmann's type_error.316 ended the rank with SIGABRT and the node was held, not drained).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/rank_results.hpp"
#include "bench/core/record_wire.hpp"
#include "bench/core/runner.hpp"
#include "bench/core/world.hpp"
#include "results/json_text.hpp"
#include "results/record_json.hpp"
#include "tests/doubles/runner_doubles.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

const std::string kHost =
    "node\xff"
    "07";                                                 // a lone continuation byte
const std::string kPath = "/mnt/\xc3(ckpt/\xed\xa0\x80";  // a cut pair, a surrogate
const std::string kKernelLine = "NVRM: Xid (PCI:0000:3b:00): 79, \xfe\xfe GPU has fallen off";
const std::string kReplacement = "\xEF\xBF\xBD";

Measurement hostile_measurement() {
  Measurement m;
  m.probe = "test.value";
  m.metric = "value";
  m.unit = "count";
  m.value = 1;  // below the profile's warn (3): a FAIL about this host
  m.host = kHost;
  m.rank = 0;
  m.subject = kPath;
  m.params["path"] = kPath;
  m.params["example"] = kKernelLine;
  m.message = kKernelLine;
  m.by_rank.push_back({0, kHost, 1});
  return m;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Strictly parsed (nlohmann refuses invalid UTF-8): every line of a JSONL file, or the whole file.
void expect_valid_json(const std::filesystem::path& path, bool lines) {
  const std::string text = read_file(path);
  ASSERT_FALSE(text.empty()) << path;
  std::vector<std::string> parts;
  if (lines) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) parts.push_back(line);
  } else {
    parts.push_back(text);
  }
  for (const std::string& part : parts) {
    EXPECT_FALSE(nlohmann::json::parse(part, nullptr, false).is_discarded())
        << path << ": not valid UTF-8 JSON: " << part;
  }
}

// The records as the gather carries them (record_wire), then as rank 0 writes them.
TEST(Utf8Gather, RecordsCrossRanksAndAreWrittenWithReplacements) {
  const Measurement m = hostile_measurement();
  Finding f = finding_about(m, Severity::fail);
  f.message = kKernelLine;
  f.evidence = kPath;
  RankResults results;
  results.measurements.push_back(m);
  results.notes.push_back(kKernelLine);
  WireWriter out;
  wire_write(out, results);
  wire_write(out, f);
  const std::string bytes = out.take();
  WireReader in(bytes);
  RankResults gathered;
  Finding finding;
  wire_read(in, gathered);
  wire_read(in, finding);
  ASSERT_EQ(gathered.measurements.size(), 1u);
  EXPECT_EQ(gathered.measurements[0].host, kHost);  // bit for bit across ranks
  std::string line;
  ASSERT_NO_THROW(line = to_jsonl_line(to_json(gathered.measurements[0])));
  const auto back = nlohmann::json::parse(line);
  EXPECT_EQ(back["host"], "node" + kReplacement + "07");
  EXPECT_NE(back["params"]["path"].get<std::string>().find(kReplacement), std::string::npos);
  ASSERT_NO_THROW(line = json_text(to_json(finding), 2));
  EXPECT_FALSE(nlohmann::json::parse(line, nullptr, false).is_discarded());
  // A bare dump() is what threw: the helper exists because of it.
  EXPECT_THROW((void)nlohmann::json(kHost).dump(), nlohmann::json::type_error);
}

// A whole run whose probe reports such a figure: the FAIL is recorded, the node drained, and every
// file of the run directory is valid UTF-8 JSON (the run exits 1, not SIGABRT).
TEST(Utf8Gather, ARunWithNonUtf8FiguresWritesEveryFile) {
  testing::TempDir dir;
  testing::ScriptedProbe probe("test.value",
                               [](MeasurementSink& sink) { sink.emit(hostile_measurement()); });
  std::vector<std::string> events;
  const auto out = dir.path() / "run";
  int code = -1;
  {
    Runner runner(testing::recorded_request({&probe}, out, events));
    auto world = make_single_world();
    code = runner.execute(*world);
  }
  EXPECT_EQ(code, 1);
  expect_valid_json(out / "summary.json", false);
  expect_valid_json(out / "measurements.jsonl", true);
  expect_valid_json(out / "findings.jsonl", true);
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  ASSERT_EQ(summary["drain"].size(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["drain"][0]["host"], "node" + kReplacement + "07");
}

}  // namespace
}  // namespace fabcheck
