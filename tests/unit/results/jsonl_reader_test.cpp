// Tests of the streaming JSONL reader and the strict JSON line parser: regular files only (a FIFO,
// /dev/zero, a directory are refused at once), bounded lines, unfinished last lines, every JSON
// form, and measurement records read the same as record_json.hpp writes them.
#include "results/jsonl_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "bench/sys/config_error.hpp"
#include "results/json_line.hpp"
#include "results/record_json.hpp"
#include "results/record_lines.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using fabcheck::testing::TempDir;  // tests/doubles/temp_dir.hpp

std::vector<std::string> lines_of(const fs::path& file, std::size_t max_line = kMaxJsonlLineBytes,
                                  std::vector<bool>* terminated = nullptr) {
  std::vector<std::string> lines;
  for_each_jsonl_line(
      file,
      [&](std::string_view line, std::size_t, bool done) {
        lines.emplace_back(line);
        if (terminated) terminated->push_back(done);
      },
      max_line);
  return lines;
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(JsonlReader, LinesBlankLinesCrLfAndAnUnfinishedLastLine) {
  TempDir dir;
  const fs::path file = dir.path() / "m.jsonl";
  std::ofstream(file) << "{\"a\":1}\r\n\n   \n{\"b\":2}\n{\"c\":";
  std::vector<bool> terminated;
  EXPECT_EQ(lines_of(file, kMaxJsonlLineBytes, &terminated),
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":"}));
  EXPECT_EQ(terminated, (std::vector<bool>{true, true, false}));
}

TEST(JsonlReader, LinesAcrossTheReadChunks) {
  TempDir dir;
  const fs::path file = dir.path() / "big.jsonl";
  {
    std::ofstream out(file);
    for (int i = 0; i < 40000; ++i)
      out << "{\"i\":" << i << ",\"pad\":\"" << std::string(50, 'x') << "\"}\n";
  }
  const auto lines = lines_of(file);
  ASSERT_EQ(lines.size(), 40000u);
  EXPECT_EQ(lines[39999].substr(0, 10), "{\"i\":39999");
}

TEST(JsonlReader, TooLongLineNamesFileAndLine) {
  TempDir dir;
  const fs::path file = dir.path() / "long.jsonl";
  std::ofstream(file) << "{}\n" << std::string(5000, 'x') << "\n";
  EXPECT_THAT(error_of([&] { lines_of(file, 1024); }),
              HasSubstr(file.string() + ":2: line longer than 1024 bytes"));
  // Without a newline anywhere, too.
  std::ofstream(file, std::ios::trunc) << std::string(5000, 'x');
  EXPECT_THAT(error_of([&] { lines_of(file, 1024); }), HasSubstr("line longer than 1024 bytes"));
}

TEST(JsonlReader, RefusesWhatIsNotARegularFileAtOnce) {
  TempDir dir;
  const fs::path fifo = dir.path() / "measurements.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THAT(error_of([&] { lines_of(fifo); }), HasSubstr("refused: a FIFO (named pipe)"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));  // no wait
  EXPECT_THAT(error_of([&] { lines_of("/dev/zero"); }),
              HasSubstr("/dev/zero: refused: a character device"));
  EXPECT_THAT(error_of([&] { lines_of(dir.path()); }), HasSubstr("refused: a directory"));
  EXPECT_THAT(error_of([&] { lines_of(dir.path() / "none.jsonl"); }), HasSubstr("no such file"));
  const fs::path zero_link = dir.path() / "zero.jsonl";
  fs::create_symlink("/dev/zero", zero_link);
  EXPECT_THAT(error_of([&] { lines_of(zero_link); }), HasSubstr("refused: a character device"));
  EXPECT_THAT(error_of([&] { read_small_regular_file("/dev/zero", 100); }),
              HasSubstr("refused: a character device"));
}

TEST(JsonlReader, SmallFileLimit) {
  TempDir dir;
  const fs::path file = dir.path() / "summary.json";
  std::ofstream(file) << std::string(200, 'a');
  EXPECT_EQ(read_small_regular_file(file, 200).size(), 200u);
  EXPECT_THAT(error_of([&] { read_small_regular_file(file, 199); }), HasSubstr("larger than 199"));
}

TEST(JsonLine, ValuesAndEscapes) {
  JsonLine json;
  ASSERT_TRUE(json.parse(R"( {"s":"a\"b\\c\/\n\u00e9\ud83d\ude00","n":-1.5e3,"i":42,"t":true,
                           "f":false,"z":null,"o":{"k":"v"},"a":[1,"x",[]]} )"))
      << json.error();
  const auto& root = json.root();
  EXPECT_EQ(json.member(root, "s")->text, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(*JsonLine::as_double(*json.member(root, "n")), -1500);
  EXPECT_EQ(*JsonLine::as_int64(*json.member(root, "i")), 42);
  EXPECT_FALSE(JsonLine::as_int64(*json.member(root, "n")));
  EXPECT_FALSE(JsonLine::as_uint64(*json.member(root, "n")));
  EXPECT_TRUE(json.member(root, "t")->boolean);
  EXPECT_EQ(json.member(root, "z")->kind, JsonLine::Kind::null);
  EXPECT_EQ(json.member(*json.member(root, "o"), "k")->text, "v");
  int elements = 0;
  json.for_each_child(*json.member(root, "a"), [&](const JsonLine::Node&) { ++elements; });
  EXPECT_EQ(elements, 3);
  EXPECT_EQ(json.member(root, "missing"), nullptr);
}

TEST(JsonLine, MemberFromACursorFindsEveryKeyInAnyOrder) {
  JsonLine json;
  ASSERT_TRUE(json.parse(R"({"a":1,"b":2,"c":3,"d":{"a":9}})")) << json.error();
  const auto& root = json.root();
  std::uint32_t cursor = 0;
  // In the written order: each found where the cursor stands.
  for (const char* key : {"a", "b", "c"}) {
    const auto* node = json.member(root, key, cursor);
    ASSERT_NE(node, nullptr) << key;
    EXPECT_EQ(node->key, key);
  }
  // Out of order and wrapping round; the nested "a" is not the root's.
  EXPECT_EQ(*JsonLine::as_int64(*json.member(root, "a", cursor)), 1);
  EXPECT_EQ(*JsonLine::as_int64(*json.member(root, "c", cursor)), 3);
  EXPECT_EQ(*JsonLine::as_int64(*json.member(root, "b", cursor)), 2);
  EXPECT_EQ(json.member(root, "d", cursor)->kind, JsonLine::Kind::object);
  EXPECT_EQ(*JsonLine::as_int64(*json.member(root, "a", cursor)), 1);  // after the last member
  EXPECT_EQ(json.member(root, "missing", cursor), nullptr);
  EXPECT_EQ(*JsonLine::as_int64(*json.member(root, "b", cursor)), 2);
  std::uint32_t empty_cursor = 0;
  ASSERT_TRUE(json.parse("{}"));
  EXPECT_EQ(json.member(json.root(), "a", empty_cursor), nullptr);
}

TEST(JsonLine, RejectsWhatIsNotJson) {
  JsonLine json;
  for (const char* bad :
       {"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "{'a':1}", "{\"a\":01}", "{\"a\":1.}",
        "{\"a\":-}", "{\"a\":\"x}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\ud800\"}",
        "{\"a\":1} x", "{\"a\":tru}", "{\"a\":\"tab\there\"}", "nul"}) {
    EXPECT_FALSE(json.parse(bad)) << bad;
    EXPECT_FALSE(json.error().empty()) << bad;
  }
  std::string deep(100, '[');
  deep += std::string(100, ']');
  EXPECT_FALSE(json.parse(deep));
  EXPECT_THAT(json.error(), HasSubstr("nested deeper than 32 levels"));
}

TEST(RecordLines, MeasurementReadsBackAsWritten) {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = 412.5;
  m.unit = "GB/s";
  m.host = "node07";
  m.rank = 3;
  m.subject = "world";
  m.peer = "node12/mlx5_3";
  m.size_bytes = 1ull << 33;
  m.params = {{"backend", "nccl"}, {"note", "quote \" and \\ and é"}};
  m.stats = SampleStats{20, 400, 412.5, 420, 419, 411, 0.01};
  m.status = MeasurementStatus::ok;
  m.time_utc = "2026-11-30T06:09:26Z";
  const std::string line = to_json(m).dump();
  JsonLine json;
  ASSERT_TRUE(json.parse(line)) << json.error();
  MeasurementFields fields;
  const std::string file = "m.jsonl";
  read_measurement_fields(json, {&file, 7}, fields);
  const Measurement back = to_measurement(fields);
  EXPECT_EQ(to_json(back), to_json(m));
}

TEST(RecordLines, StrictFieldsNameFileLineAndField) {
  const std::string file = "run/measurements.jsonl";
  JsonLine json;
  MeasurementFields fields;
  auto error = [&](const std::string& line) {
    EXPECT_TRUE(json.parse(line)) << line;
    return error_of([&] { read_measurement_fields(json, {&file, 12}, fields); });
  };
  Measurement m;
  m.probe = "p";
  nlohmann::json good = to_json(m);
  nlohmann::json bad = good;
  bad.erase("unit");
  EXPECT_THAT(error(bad.dump()), HasSubstr("run/measurements.jsonl:12: missing field \"unit\""));
  bad = good;
  bad["rank"] = "3";
  EXPECT_THAT(error(bad.dump()), HasSubstr("field \"rank\" must be an int, got a string \"3\""));
  bad = good;
  bad["schema_version"] = 99;
  EXPECT_THAT(error(bad.dump()), HasSubstr("schema_version 99 is not one this build reads"));
  bad = good;
  bad["status"] = "maybe";
  EXPECT_THAT(error(bad.dump()), HasSubstr("unknown value \"maybe\""));
  bad = good;
  bad["params"] = {{"k", 1}};
  EXPECT_THAT(error(bad.dump()), HasSubstr("field \"params.k\" must be a string"));
  bad = good;
  bad["kind"] = "finding";
  EXPECT_THAT(error(bad.dump()), HasSubstr("\"kind\" is \"finding\", expected \"measurement\""));
}

}  // namespace
}  // namespace fabcheck
