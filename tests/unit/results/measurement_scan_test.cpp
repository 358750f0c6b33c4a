// Differential tests of the one-pass measurement scan against the strict path (JsonLine +
// read_measurement_fields): whatever the scan accepts, the strict path accepts with the same
// fields; the lines the writers produce (RunWriter, the synthetic fleet) take the scan; everything
// unusual (escapes, errors, odd numbers) is left to the strict path.
#include "results/measurement_scan.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bench/sys/config_error.hpp"
#include "results/jsonl_reader.hpp"
#include "results/run_reader.hpp"
#include "results/run_writer.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/synthetic/synthetic_fleet.hpp"
#include "tests/unit/results/measurement_fields_check.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using fabcheck::testing::TempDir;

struct Outcome {
  bool scanned = false;  // the scan accepted the line
  bool strict = false;   // the strict path accepted it
};

// Reads `line` both ways; when the scan accepts it, the strict path must too, field for field.
Outcome check(std::string_view line) {
  static JsonLine json;
  MeasurementFields fast;
  MeasurementFields slow;
  Outcome outcome;
  outcome.scanned = scan_measurement_line(line, fast);
  outcome.strict = fabcheck::testing::read_strictly(json, line, slow);
  if (outcome.scanned) {
    EXPECT_TRUE(outcome.strict) << "the scan accepted a line the strict path refuses: " << line;
    if (outcome.strict) {
      EXPECT_EQ(fabcheck::testing::first_difference(fast, slow), "") << line;
    }
  }
  return outcome;
}

// A line the scan must read itself.
void expect_scanned(std::string_view line) {
  const Outcome outcome = check(line);
  EXPECT_TRUE(outcome.scanned) << "left to the strict path: " << line;
  EXPECT_TRUE(outcome.strict) << line;
}

// A line the scan must leave to the strict path, which accepts it (`strict`) or names its error.
void expect_left(std::string_view line, bool strict) {
  const Outcome outcome = check(line);
  EXPECT_FALSE(outcome.scanned) << line;
  EXPECT_EQ(outcome.strict, strict) << line;
}

// A record as (key, JSON value) members, in record_json.hpp's order (not the writer's sorted one).
using Members = std::vector<std::pair<std::string, std::string>>;

Members base() {
  return {{"schema_version", "1"},
          {"kind", "\"measurement\""},
          {"probe", "\"gpu.h2d\""},
          {"metric", "\"bw\""},
          {"value", "24.5"},
          {"unit", "\"GB/s\""},
          {"host", "\"node00001\""},
          {"rank", "3"},
          {"subject", "\"gpu0\""},
          {"peer", "\"\""},
          {"size_bytes", "1073741824"},
          {"params", "{\"bus_id\": \"0000:17:00.0\", \"model\": \"H100\"}"},
          {"stats",
           "{\"count\": 20, \"min\": 24.1, \"median\": 24.5, \"max\": 24.9, \"p99\": 24.8, "
           "\"mean\": 24.5, \"cv\": 0.004}"},
          {"status", "\"ok\""},
          {"message", "\"\""},
          {"time_utc", "\"2026-11-30T02:00:00Z\""}};
}

const char* const kFields[] = {
    "schema_version", "kind", "probe",      "metric", "value", "unit",   "host",    "rank",
    "subject",        "peer", "size_bytes", "params", "stats", "status", "message", "time_utc"};

std::string compose(const Members& members, std::string_view colon = ": ",
                    std::string_view comma = ", ") {
  std::string line = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i > 0) line += comma;
    line += "\"" + members[i].first + "\"";
    line += colon;
    line += members[i].second;
  }
  return line + "}";
}

Members with(Members members, const std::string& key, const std::string& value) {
  for (auto& member : members) {
    if (member.first == key) member.second = value;
  }
  return members;
}

Members without(Members members, const std::string& key) {
  std::erase_if(members, [&](const auto& member) { return member.first == key; });
  return members;
}

Members plus(Members members, const std::string& key, const std::string& value) {
  members.emplace_back(key, value);
  return members;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  for_each_jsonl_line(file,
                      [&](std::string_view line, std::size_t, bool) { lines.emplace_back(line); });
  return lines;
}

Measurement writer_measurement() {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = 181.25;
  m.unit = "GB/s";
  m.host = "node00007";
  m.rank = 0;
  m.subject = "world";
  m.size_bytes = 1ull << 30;
  m.params = {{"backend", "nccl"}, {"placement", "out"}, {"ranks", "8"}, {"type", "float"}};
  m.stats = SampleStats{20, 180.0, 181.25, 182.5, 182.4, 181.3, 0.004};
  m.time_utc = "2026-11-30T02:00:00Z";
  return m;
}

// The records RunWriter writes (compact, members in alphabetical order), in every shape the
// scan reads itself.
std::vector<Measurement> plain_measurements() {
  std::vector<Measurement> all;
  all.push_back(writer_measurement());
  Measurement m = writer_measurement();
  m.stats.reset();
  m.size_bytes.reset();
  m.params.clear();
  m.rank = -1;
  m.value = 2.0;
  all.push_back(m);
  m = writer_measurement();
  m.value = std::nan("");  // written as null
  m.stats->cv = std::numeric_limits<double>::infinity();
  m.status = MeasurementStatus::error;
  m.message = "probe timed out after 60 s";
  m.by_rank = {{0, "node00007", 1.5}, {1, "node00008", std::nan("")}};
  all.push_back(m);
  m = writer_measurement();
  m.status = MeasurementStatus::waived;
  m.message = "waived: état dégradé ✓";  // raw UTF-8, not escaped by the writer
  m.value = -0.0;
  m.size_bytes = 0;
  m.rank = 2147483647;
  m.stats->count = 18446744073709551615ull;
  m.stats->min = 1e-300;
  m.stats->max = 1.7976931348623157e308;
  all.push_back(m);
  m = writer_measurement();
  m.rank = -2147483647 - 1;
  m.size_bytes = 18446744073709551615ull;
  m.value = 123456789012345678.0;
  all.push_back(m);
  return all;
}

std::vector<std::string> writer_lines(const std::vector<Measurement>& measurements) {
  const TempDir dir;
  {
    RunWriter writer(dir.path() / "run");
    for (const Measurement& m : measurements) writer.append(m);
  }
  return lines_of(dir.path() / "run" / "measurements.jsonl");
}

TEST(MeasurementScan, ReadsTheRunWritersLines) {
  const auto lines = writer_lines(plain_measurements());
  ASSERT_EQ(lines.size(), 5u);
  for (const std::string& line : lines) expect_scanned(line);
  // What the scan read, as the writer wrote it.
  MeasurementFields fields;
  ASSERT_TRUE(scan_measurement_line(lines[0], fields));
  EXPECT_EQ(to_measurement(fields).params, writer_measurement().params);
  EXPECT_EQ(fields.value, 181.25);
  EXPECT_EQ(fields.stats->median, 181.25);
  ASSERT_TRUE(scan_measurement_line(lines[2], fields));
  EXPECT_TRUE(std::isnan(fields.value));
  EXPECT_TRUE(std::isnan(fields.stats->cv));
  EXPECT_EQ(fields.status, MeasurementStatus::error);
  EXPECT_EQ(fields.message, "probe timed out after 60 s");
  ASSERT_TRUE(scan_measurement_line(lines[3], fields));
  EXPECT_EQ(fields.rank, 2147483647);
  EXPECT_EQ(fields.size_bytes, 0u);
  EXPECT_EQ(fields.stats->count, 18446744073709551615ull);
}

TEST(MeasurementScan, LeavesTheWritersEscapedStringsToTheStrictPath) {
  Measurement quoted = writer_measurement();
  quoted.message = "said \"no\"";
  Measurement lines = writer_measurement();
  lines.params["socket_lines"] = "a\nb";
  Measurement control = writer_measurement();
  control.subject = std::string("gpu\x01", 4);
  Measurement invalid = writer_measurement();
  invalid.host = "node\xff";  // invalid UTF-8: the writer puts U+FFFD instead
  for (const std::string& line : writer_lines({quoted, lines, control})) expect_left(line, true);
  expect_scanned(writer_lines({invalid}).front());
}

TEST(MeasurementScan, ReadsTheSyntheticFleetsLines) {
  const TempDir dir;
  synthetic::FleetSpec spec;
  spec.nodes = 16;
  const synthetic::Fleet fleet = synthetic::write_fleet(dir.path() / "sweep", spec);
  std::size_t scanned = 0;
  std::size_t left = 0;
  for (const fs::path& run : fleet.run_dirs) {
    for (const std::string& line : lines_of(run / "measurements.jsonl")) {
      const Outcome outcome = check(line);
      EXPECT_TRUE(outcome.strict) << line;
      if (outcome.scanned) {
        ++scanned;
      } else {
        ++left;
        // Only lines with an escape (NCCL's log lines quoted in a param) take the strict path.
        EXPECT_NE(line.find('\\'), std::string::npos) << line;
      }
    }
  }
  EXPECT_EQ(scanned + left, fleet.measurements);
  EXPECT_GT(scanned, 1000u);
  EXPECT_LT(left, scanned / 100);
}

// The fuzz target's seeds (tests/fixtures/results/measurement-lines): every one the scan reads
// but the one with escapes.
TEST(MeasurementScan, ReadsTheFuzzSeeds) {
  const fs::path dir = fs::path(FABCHECK_FIXTURES_DIR) / "results" / "measurement-lines";
  std::size_t seeds = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".jsonl") continue;
    ++seeds;
    const std::vector<std::string> lines = lines_of(entry.path());
    ASSERT_EQ(lines.size(), 1u) << entry.path();
    if (entry.path().filename() == "synthetic-escaped.jsonl") {
      expect_left(lines.front(), true);
    } else {
      expect_scanned(lines.front());
    }
  }
  EXPECT_EQ(seeds, 6u);
}

TEST(MeasurementScan, ReadsMembersInAnyOrderWithAnyWhitespace) {
  const Members members = base();
  expect_scanned(compose(members));
  expect_scanned(compose(members, ":", ","));
  expect_scanned(compose(members, " \t:\r\n ", "\n,\t"));
  expect_scanned(" \t" + compose(members) + " \r\n\t ");
  Members reversed(members.rbegin(), members.rend());
  expect_scanned(compose(reversed));
  for (std::size_t shift = 1; shift < members.size(); ++shift) {
    Members rotated = members;
    std::rotate(rotated.begin(), rotated.begin() + static_cast<std::ptrdiff_t>(shift),
                rotated.end());
    expect_scanned(compose(rotated, ":", ","));
  }
  // Whitespace inside the nested objects, and stats' members in another order.
  expect_scanned(compose(with(members, "params", "{ \"b\" :\t\"1\" ,\n\"a\":\"2\" }")));
  expect_scanned(compose(with(members, "stats",
                              "{ \"cv\":0.1,\"mean\":2,\"p99\":3,\"max\":4,\"median\":5,"
                              "\"min\":6,\"count\":7 }")));
  expect_scanned(compose(with(members, "params", "{}")));
  expect_scanned(compose(with(members, "params", "{ }")));
  // Whitespace that JSON does not allow (a vertical tab, a form feed) around a token.
  expect_left(compose(members, ":\v", ", "), false);
  expect_left(compose(members, ": ", ",\f"), false);
}

TEST(MeasurementScan, ReadsNullsAsTheStrictPathDoes) {
  const Members members = base();
  expect_scanned(compose(with(members, "value", "null")));
  expect_scanned(compose(with(members, "size_bytes", "null")));
  expect_scanned(compose(with(members, "stats", "null")));
  for (const char* stat : {"min", "median", "max", "p99", "mean", "cv"}) {
    Members nulled = with(members, "stats",
                          "{\"count\": 1, \"min\": 1, \"median\": 1, \"max\": 1, \"p99\": 1, "
                          "\"mean\": 1, \"cv\": 1}");
    std::string& stats = nulled[12].second;
    const std::string key = std::string("\"") + stat + "\": 1";
    stats.replace(stats.find(key), key.size(), std::string("\"") + stat + "\": null");
    expect_scanned(compose(nulled));
  }
  for (const char* field : {"schema_version", "kind", "probe", "metric", "unit", "host", "rank",
                            "subject", "peer", "params", "status", "message", "time_utc"}) {
    expect_left(compose(with(members, field, "null")), false);
  }
  expect_left(compose(with(members, "stats",
                           "{\"count\": null, \"min\": 1, \"median\": 1, "
                           "\"max\": 1, \"p99\": 1, \"mean\": 1, \"cv\": 1}")),
              false);
}

TEST(MeasurementScan, LeavesEscapesToTheStrictPath) {
  const Members members = base();
  for (const char* escaped : {"\"a\\\"b\"", "\"a\\\\b\"", "\"a\\/b\"", "\"\\b\\f\\n\\r\\t\"",
                              "\"\\u00e9t\\u00E9\"", "\"\\ud83d\\ude00\"", "\"\\u0000\""}) {
    expect_left(compose(with(members, "message", escaped)), true);
    expect_left(compose(with(members, "params", std::string("{\"k\": ") + escaped + "}")), true);
    expect_left(compose(with(members, "params", std::string("{") + escaped + ": \"v\"}")), true);
    expect_left(compose(plus(members, "by_rank", std::string("[") + escaped + "]")), true);
  }
  // An escaped key that reads as a known one, or an escaped known value.
  expect_left(compose(plus(without(members, "kind"), "kin\\u0064", "\"measurement\"")), true);
  expect_left(compose(with(members, "kind", "\"measur\\u0065ment\"")), true);
  expect_left(compose(with(members, "status", "\"\\u006fk\"")), true);
  // Malformed escapes and lone surrogates: the strict path names the error.
  for (const char* bad : {"\"\\x41\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00x\"", "\"a\\\""}) {
    expect_left(compose(with(members, "message", bad)), false);
  }
  // Control characters in a string are refused by both.
  for (const char control : {'\0', '\x01', '\t', '\n', '\r', '\x1f'}) {
    expect_left(compose(with(members, "unit", std::string("\"G") + control + "B\"")), false);
  }
}

// Every byte a string may hold raw (not '"', '\\' or a control character) at every place of an
// 8-byte word: the word-at-a-time search must stop only at the closing quote.
TEST(MeasurementScan, FindsTheClosingQuoteWordAtATime) {
  const Members members = base();
  for (int byte = 0x20; byte <= 0xff; ++byte) {
    if (byte == '"' || byte == '\\') continue;
    for (std::size_t at = 0; at < 17; ++at) {
      std::string text(17, 'a');
      text[at] = static_cast<char>(byte);
      const std::string line = compose(with(members, "message", "\"" + text + "\""));
      MeasurementFields fields;
      ASSERT_TRUE(scan_measurement_line(line, fields)) << byte << " at " << at;
      ASSERT_EQ(fields.message, text);
    }
  }
  for (int byte = 0; byte < 0x20; ++byte) {
    for (std::size_t at = 0; at < 17; ++at) {
      for (const char before : {'a', '\x01', '"', '\xff', '\x80'}) {
        std::string text(17, before == '"' ? 'a' : before);
        text[at] = static_cast<char>(byte);
        const Outcome outcome = check(compose(with(members, "message", "\"" + text + "\"")));
        EXPECT_FALSE(outcome.scanned);
        EXPECT_FALSE(outcome.strict);
      }
    }
  }
  // Strings of every length up to three words, ending on each byte of one.
  for (std::size_t length = 0; length < 25; ++length) {
    expect_scanned(compose(with(members, "peer", "\"" + std::string(length, 'p') + "\"")));
  }
}

TEST(MeasurementScan, LeavesMissingFieldsToTheStrictPath) {
  const Members members = base();
  for (const char* field : kFields) expect_left(compose(without(members, field)), false);
  for (const char* stat : {"count", "min", "median", "max", "p99", "mean", "cv"}) {
    std::string stats = "{";
    for (const char* other : {"count", "min", "median", "max", "p99", "mean", "cv"}) {
      if (std::string_view(other) == stat) continue;
      if (stats.size() > 1) stats += ", ";
      stats += std::string("\"") + other + "\": 1";
    }
    expect_left(compose(with(members, "stats", stats + "}")), false);
  }
  expect_left("{}", false);
  expect_left("", false);
  expect_left("   ", false);
}

TEST(MeasurementScan, LeavesRepeatedFieldsToTheStrictPath) {
  const Members members = base();
  for (const auto& [key, value] : members) expect_left(compose(plus(members, key, value)), true);
  // (Which of two the strict reader takes depends on where it looks first; never the scan's.)
  EXPECT_FALSE(check(compose(plus(members, "status", "\"bogus\""))).scanned);
  expect_left(compose(with(members, "stats",
                           "{\"count\": 20, \"min\": 1, \"median\": 2, \"max\": 3, \"p99\": 4, "
                           "\"mean\": 5, \"cv\": 6, \"min\": 7}")),
              true);
  expect_left(compose(with(members, "stats",
                           "{\"count\": 20, \"min\": 1, \"median\": 2, \"max\": 3, \"p99\": 4, "
                           "\"mean\": 5, \"cv\": 6, \"count\": 1}")),
              true);
  // Params are a list: a repeated key is kept, in the line's order, by both.
  const std::string repeated =
      compose(with(members, "params", "{\"k\": \"1\", \"j\": \"2\", \"k\": \"3\"}"));
  expect_scanned(repeated);
  MeasurementFields fields;
  ASSERT_TRUE(scan_measurement_line(repeated, fields));
  ASSERT_EQ(fields.params.size(), 3u);
  EXPECT_EQ(fields.params[2].first, "k");
  EXPECT_EQ(fields.params[2].second, "3");
  // Members the strict reader ignores may repeat.
  expect_scanned(compose(plus(plus(members, "by_rank", "[]"), "by_rank", "[1]")));
}

TEST(MeasurementScan, LeavesWrongTypesAndValuesToTheStrictPath) {
  const Members members = base();
  const std::vector<std::string> values = {"\"1\"", "1",  "-1", "1.5",     "true",
                                           "false", "[]", "{}", "[\"a\"]", "{\"a\": \"b\"}"};
  for (const char* field : kFields) {
    for (const std::string& value : values) check(compose(with(members, field, value)));
  }
  // Each of these is refused by the strict path.
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"schema_version", "2"},
           {"schema_version", "0"},
           {"schema_version", "1.0"},
           {"schema_version", "1e0"},
           {"schema_version", "\"1\""},
           {"kind", "\"finding\""},
           {"kind", "\"Measurement\""},
           {"status", "\"OK\""},
           {"status", "\"pass\""},
           {"status", "\"\""},
           {"rank", "1.0"},
           {"rank", "1e2"},
           {"rank", "2147483648"},
           {"rank", "-2147483649"},
           {"rank", "9223372036854775808"},
           {"rank", "\"3\""},
           {"size_bytes", "-1"},
           {"size_bytes", "-0"},
           {"size_bytes", "1.0"},
           {"size_bytes", "1e3"},
           {"size_bytes", "18446744073709551616"},
           {"value", "\"1\""},
           {"value", "true"},
           {"params", "[]"},
           {"params", "{\"a\": 1}"},
           {"params", "{\"a\": null}"},
           {"params", "{\"a\": \"b\", \"c\": {}}"},
           {"stats", "[]"},
           {"stats", "1"},
           {"stats",
            "{\"count\": -1, \"min\": 1, \"median\": 1, \"max\": 1, \"p99\": 1, "
            "\"mean\": 1, \"cv\": 1}"},
           {"stats",
            "{\"count\": 1.5, \"min\": 1, \"median\": 1, \"max\": 1, \"p99\": 1, "
            "\"mean\": 1, \"cv\": 1}"},
           {"stats",
            "{\"count\": 1, \"min\": \"1\", \"median\": 1, \"max\": 1, \"p99\": 1, "
            "\"mean\": 1, \"cv\": 1}"},
       }) {
    expect_left(compose(with(members, field, value)), false);
  }
  // And these are accepted by both.
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"rank", "2147483647"},
           {"rank", "-2147483648"},
           {"rank", "-0"},
           {"size_bytes", "0"},
           {"size_bytes", "18446744073709551615"},
           {"value", "-0"},
           {"value", "-0.0"},
           {"value", "1E+2"},
           {"value", "1e-2"},
           {"value", "0.1e1"},
           {"value", "-12345678901234567890123"},
           {"value", "1.7976931348623157e308"},
           {"value", "2.2250738585072014e-308"},
       }) {
    expect_scanned(compose(with(members, field, value)));
  }
}

TEST(MeasurementScan, LeavesNumbersFromCharsCannotConvertExactly) {
  const Members members = base();
  // Beyond a double's range: the strict path takes strtod's infinity or zero.
  for (const char* huge : {"1e400", "-1e400", "1e-400"}) {
    expect_left(compose(with(members, "value", huge)), true);
    expect_left(compose(with(members, "stats",
                             std::string("{\"count\": 1, \"min\": ") + huge +
                                 ", \"median\": 1, \"max\": 1, \"p99\": 1, \"mean\": 1, "
                                 "\"cv\": 1}")),
                true);
  }
  // Subnormals: whatever from_chars says, both agree.
  check(compose(with(members, "value", "4.9e-324")));
  check(compose(with(members, "value", "2.2250738585072011e-308")));
  // Not JSON numbers.
  for (const char* bad : {"01", "1.", ".5", "+1", "-", "1e", "1e+", "NaN", "Infinity", "-Infinity",
                          "0x10", "1_000", "--1", "1.5.5", "nul", "nulls", "tru"}) {
    expect_left(compose(with(members, "value", bad)), false);
  }
}

// The scan converts most figures without from_chars (an exact integer times or divided by an
// exact power of ten); every such conversion must give from_chars' double, bit for bit, and the
// rest go to from_chars itself: numbers as writers print them and as nobody does.
TEST(MeasurementScan, ConvertsNumbersBitForBitAsFromChars) {
  const Members members = base();
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  std::vector<std::string> numbers = {"0",
                                      "-0",
                                      "0.0",
                                      "-0.0",
                                      "1e22",
                                      "1e23",
                                      "9007199254740992",
                                      "9007199254740993",
                                      "123456789012345678",
                                      "1.5e-22",
                                      "1.5e-23",
                                      "0.1",
                                      "0.3",
                                      "2.675",
                                      "1E5",
                                      "1e+05",
                                      "-4.2e-7",
                                      "12345678901234567890",
                                      "0.00000000000000000001"};
  for (int i = 0; i < 4000; ++i) {
    const double value =
        std::ldexp(static_cast<double>(next() >> 11), -static_cast<int>(next() % 90)) *
        ((next() & 1) ? 1 : -1);
    for (const char* format : {"{}", "{:.6g}", "{:.17g}", "{:.3f}", "{:e}"}) {
      numbers.push_back(fmt::format(fmt::runtime(format), value));
    }
    numbers.push_back(std::to_string(next() % 100000) + "." + std::to_string(next() % 1000000) +
                      "e" + std::to_string(static_cast<int>(next() % 50) - 25));
  }
  for (const std::string& number : numbers) {
    const std::string line = compose(with(members, "value", number));
    MeasurementFields fields;
    ASSERT_TRUE(scan_measurement_line(line, fields)) << number;
    double expected = 0;
    std::from_chars(number.data(), number.data() + number.size(), expected);
    ASSERT_TRUE(fabcheck::testing::same_bits(fields.value, expected)) << number;
    check(line);
  }
}

TEST(MeasurementScan, SkipsUnknownMembersByTheJsonGrammar) {
  const Members members = base();
  for (const char* value :
       {"[]", "{}", "[{\"rank\": 0, \"host\": \"a\", \"value\": null}]",
        "{\"a\": [1, -2.5e3, {\"b\": true, \"c\": false, \"d\": null}], \"e\": \"f\"}", "true",
        "false", "null", "-1.5e-3", "0", "\"text\"", "[ 1 , [ ] , { } ]"}) {
    expect_scanned(compose(plus(members, "by_rank", value)));
    expect_scanned(compose(plus(members, "", value)));
    // Unknown members of stats are ignored by the strict reader too.
    Members stats = members;
    stats[12].second.insert(1, std::string("\"extra\": ") + value + ", ");
    expect_scanned(compose(stats));
  }
  for (const char* bad : {"[", "]", "{", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\" 1}",
                          "{1: 2}", "{\"a\": 1,}", "[1 2]", "True", "nul", "[\"a]", "-", "'a'"}) {
    expect_left(compose(plus(members, "by_rank", bad)), false);
  }
}

// JsonLine refuses an array or object nested 32 levels below the record; so does the scan.
TEST(MeasurementScan, NestsNoDeeperThanTheStrictPath) {
  const Members members = base();
  auto nested = [](std::size_t levels) {
    return std::string(levels, '[') + "1" + std::string(levels, ']');
  };
  expect_scanned(compose(plus(members, "deep", nested(31))));
  expect_left(compose(plus(members, "deep", nested(32))), false);
  expect_left(compose(plus(members, "deep", nested(200))), false);
  Members stats = members;
  stats[12].second.insert(1, "\"deep\": " + nested(30) + ", ");
  expect_scanned(compose(stats));
  stats = members;
  stats[12].second.insert(1, "\"deep\": " + nested(31) + ", ");
  expect_left(compose(stats), false);
}

TEST(MeasurementScan, LeavesTrailingAndTruncatedTextToTheStrictPath) {
  const std::string line = compose(base());
  expect_scanned(line);
  for (const std::string tail : {"x", "}", ",", " {}", "\"", "0", "\v"}) {
    expect_left(line + tail, false);
  }
  expect_left(line + std::string(1, '\0'), false);
  for (const char* not_a_record : {"[]", "null", "1", "\"measurement\"", "{\"kind\"}", "{,}"}) {
    expect_left(not_a_record, false);
  }
  // Every prefix of a record is refused by both.
  for (std::size_t length = 0; length < line.size(); ++length) {
    expect_left(std::string_view(line).substr(0, length), false);
  }
  const std::string writer = writer_lines({writer_measurement()}).front();
  for (std::size_t length = 0; length < writer.size(); ++length) {
    expect_left(std::string_view(writer).substr(0, length), false);
  }
}

// Every record with one byte changed, in each of the writers' formats: whatever the scan
// accepts, the strict path accepts with the same fields.
TEST(MeasurementScan, AgreesWithTheStrictPathOnEveryOneByteChange) {
  std::vector<std::string> lines = writer_lines(plain_measurements());
  lines.push_back(compose(base()));
  lines.push_back(compose(plus(base(), "by_rank", "[{\"rank\": 0, \"value\": 1e3}]"), ":", ","));
  const std::string bytes =
      std::string("\"\\,:{}[] \t0-1.eE+nultrfasx") + '\0' + '\x1f' + '\x7f' + '\x80' + '\xff';
  std::size_t scanned = 0;
  for (const std::string& line : lines) {
    for (std::size_t at = 0; at < line.size(); ++at) {
      for (const char byte : bytes) {
        std::string changed = line;
        changed[at] = byte;
        scanned += check(changed).scanned ? 1 : 0;
        std::string inserted = line;
        inserted.insert(at, 1, byte);
        scanned += check(inserted).scanned ? 1 : 0;
      }
      std::string removed = line;
      removed.erase(at, 1);
      scanned += check(removed).scanned ? 1 : 0;
    }
  }
  EXPECT_GT(scanned, 1000u);  // many changes stay valid records (a digit, a letter in a string)
}

// read_run_dir takes the scan for plain records and the strict path for the rest, with the same
// rows either way and the strict path's errors, naming file and line.
TEST(MeasurementScan, RunReaderReadsBothPathsAndNamesErrors) {
  const TempDir dir;
  const fs::path run = dir.path() / "run";
  Measurement escaped = writer_measurement();
  escaped.message = "said \"no\"";
  {
    RunWriter writer(run);
    writer.append(writer_measurement());
    writer.append(escaped);
  }
  FleetStore store;
  read_run_dir(run, store);
  ASSERT_EQ(store.rows.size(), 2u);
  const Measurement plain = store.materialize(store.rows[0]);
  const Measurement strict = store.materialize(store.rows[1]);
  EXPECT_EQ(plain.params, writer_measurement().params);
  EXPECT_EQ(plain.stats->p99, 182.4);
  EXPECT_EQ(strict.message, "said \"no\"");
  EXPECT_EQ(strict.value, plain.value);

  fabcheck::testing::write_whole_file(run / "measurements.jsonl",
                                      lines_of(run / "measurements.jsonl").front() + "\n" +
                                          compose(with(base(), "rank", "2147483648")) + "\n");
  FleetStore refused;
  try {
    read_run_dir(run, refused);
    FAIL() << "a rank out of int range was read";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("measurements.jsonl:2: field \"rank\" must be an int"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace fabcheck
