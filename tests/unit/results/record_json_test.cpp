// Tests of the JSON records: field names, round trips, absent optionals, non-finite numbers and
// the errors a malformed record raises.
#include "results/record_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

Measurement full_measurement() {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = 42.5;
  m.unit = "GB/s";
  m.host = "node-a";
  m.rank = 2;
  m.subject = "world";
  m.peer = "node-b";
  m.size_bytes = 1ull << 40;
  m.params = {{"backend", "nccl"}};
  m.by_rank = {{0, "node-a", 0}, {1, "node-b", 3}};
  m.stats = SampleStats{20, 40.0, 42.5, 43.0, 42.9, 42.25, 0.015};
  m.status = MeasurementStatus::ok;
  m.message = "";
  m.time_utc = "2026-11-30T06:09:26Z";
  return m;
}

Finding full_finding() {
  Finding f;
  f.severity = Severity::warn;
  f.probe = "gpu.launch";
  f.metric = "latency";
  f.subject = "gpu3";
  f.host = "node-a";
  f.rank = 3;
  f.size_bytes = 8;
  f.observed = 7.25;
  f.expected = 5;
  f.warn_at = 10;
  f.unit = "us";
  f.message = "gpu.launch latency: 7.25 us";
  f.evidence = "observed 7.25 us";
  f.remedy = "re-run";
  f.source = "measured";
  return f;
}

void expect_same(const Measurement& a, const Measurement& b) {
  EXPECT_EQ(a.probe, b.probe);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.subject, b.subject);
  EXPECT_EQ(a.peer, b.peer);
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.by_rank, b.by_rank);
  ASSERT_EQ(a.stats.has_value(), b.stats.has_value());
  if (a.stats) {
    EXPECT_EQ(a.stats->count, b.stats->count);
    EXPECT_EQ(a.stats->min, b.stats->min);
    EXPECT_EQ(a.stats->median, b.stats->median);
    EXPECT_EQ(a.stats->max, b.stats->max);
    EXPECT_EQ(a.stats->p99, b.stats->p99);
    EXPECT_EQ(a.stats->mean, b.stats->mean);
    EXPECT_EQ(a.stats->cv, b.stats->cv);
  }
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.time_utc, b.time_utc);
}

void expect_same(const Finding& a, const Finding& b) {
  EXPECT_EQ(a.severity, b.severity);
  EXPECT_EQ(a.probe, b.probe);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.subject, b.subject);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.observed, b.observed);
  EXPECT_EQ(a.expected, b.expected);
  EXPECT_EQ(a.warn_at, b.warn_at);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.evidence, b.evidence);
  EXPECT_EQ(a.remedy, b.remedy);
  EXPECT_EQ(a.source, b.source);
}

TEST(MeasurementJson, HasTheDocumentedFields) {
  const json j = to_json(full_measurement());
  EXPECT_EQ(j.dump(),
            R"({"by_rank":[{"host":"node-a","rank":0,"value":0.0},{"host":"node-b","rank":1,)"
            R"("value":3.0}],"host":"node-a","kind":"measurement","message":"","metric":"busbw",)"
            R"("params":{"backend":"nccl"},"peer":"node-b",)"
            R"("probe":"coll.all_reduce","rank":2,"schema_version":1,"size_bytes":1099511627776,)"
            R"("stats":{"count":20,"cv":0.015,"max":43.0,"mean":42.25,"median":42.5,"min":40.0,)"
            R"("p99":42.9},"status":"ok","subject":"world","time_utc":"2026-11-30T06:09:26Z",)"
            R"("unit":"GB/s","value":42.5})");
}

TEST(MeasurementJson, RoundTripsAllFields) {
  const Measurement m = full_measurement();
  expect_same(measurement_from_json(json::parse(to_json(m).dump()), "test"), m);
}

TEST(MeasurementJson, AbsentOptionalsAreNullAndRoundTrip) {
  Measurement m;
  m.probe = "storage.seq_write";
  m.metric = "bandwidth";
  m.status = MeasurementStatus::waived;
  m.message = "no --storage-path";
  const json j = to_json(m);
  EXPECT_TRUE(j.at("size_bytes").is_null());
  EXPECT_TRUE(j.at("stats").is_null());
  EXPECT_EQ(j.at("params"), json::object());
  EXPECT_EQ(j.at("rank"), -1);
  EXPECT_EQ(j.at("status"), "waived");
  expect_same(measurement_from_json(j, "test"), m);
}

TEST(MeasurementJson, NonFiniteNumbersBecomeNullAndComeBackAsNaN) {
  Measurement m = full_measurement();
  m.value = std::numeric_limits<double>::infinity();
  m.stats->cv = std::numeric_limits<double>::quiet_NaN();
  const std::string text = to_json(m).dump();
  EXPECT_THAT(text, HasSubstr(R"("value":null)"));
  EXPECT_THAT(text, HasSubstr(R"("cv":null)"));
  const Measurement back = measurement_from_json(json::parse(text), "test");
  EXPECT_TRUE(std::isnan(back.value));
  EXPECT_TRUE(std::isnan(back.stats->cv));
  EXPECT_EQ(back.stats->median, 42.5);
}

TEST(FindingJson, HasTheDocumentedFields) {
  const json j = to_json(full_finding());
  EXPECT_EQ(j.dump(),
            R"({"evidence":"observed 7.25 us","expected":5.0,"host":"node-a","kind":"finding",)"
            R"("message":"gpu.launch latency: 7.25 us","metric":"latency","observed":7.25,)"
            R"("probe":"gpu.launch","rank":3,"remedy":"re-run","schema_version":1,)"
            R"("severity":"warn","size_bytes":8,"source":"measured","subject":"gpu3",)"
            R"("unit":"us","warn_at":10.0})");
}

TEST(FindingJson, RoundTripsAllFieldsAndAbsentOptionals) {
  const Finding f = full_finding();
  expect_same(finding_from_json(json::parse(to_json(f).dump()), "test"), f);

  Finding sparse;
  sparse.severity = Severity::waived;
  sparse.probe = "gpu.h2d";
  sparse.message = "no CUDA device";
  const json j = to_json(sparse);
  for (const char* field : {"size_bytes", "observed", "expected", "warn_at"}) {
    EXPECT_TRUE(j.at(field).is_null()) << field;
  }
  expect_same(finding_from_json(j, "test"), sparse);
}

TEST(FindingJson, NonFiniteObservedIsWrittenAsNull) {
  Finding f = full_finding();
  f.observed = std::numeric_limits<double>::quiet_NaN();
  const std::string text = to_json(f).dump();
  EXPECT_THAT(text, HasSubstr(R"("observed":null)"));
  EXPECT_FALSE(finding_from_json(json::parse(text), "test").observed.has_value());
}

std::string error_of_measurement(const json& j) {
  try {
    measurement_from_json(j, "run/measurements.jsonl:12");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(MeasurementJsonErrors, MissingAndMistypedFieldsAreNamed) {
  json j = to_json(full_measurement());
  j.erase("metric");
  EXPECT_EQ(error_of_measurement(j), "run/measurements.jsonl:12: missing field \"metric\"");

  j = to_json(full_measurement());
  j["rank"] = "two";
  EXPECT_EQ(error_of_measurement(j),
            "run/measurements.jsonl:12: field \"rank\" must be an integer, got \"two\"");

  j = to_json(full_measurement());
  j["value"] = "fast";
  EXPECT_EQ(error_of_measurement(j),
            "run/measurements.jsonl:12: field \"value\" must be a number or null, got \"fast\"");

  j = to_json(full_measurement());
  j["size_bytes"] = -4;
  EXPECT_EQ(error_of_measurement(j),
            "run/measurements.jsonl:12: field \"size_bytes\" must be a non-negative integer, got "
            "-4");

  j = to_json(full_measurement());
  j["params"]["iters"] = 20;
  EXPECT_EQ(error_of_measurement(j),
            "run/measurements.jsonl:12: field \"params.iters\" must be a string, got 20");

  j = to_json(full_measurement());
  j["stats"].erase("p99");
  EXPECT_EQ(error_of_measurement(j), "run/measurements.jsonl:12: missing field \"stats.p99\"");

  j = to_json(full_measurement());
  j["status"] = "skipped";
  EXPECT_EQ(error_of_measurement(j),
            "run/measurements.jsonl:12: field \"status\" has unknown value \"skipped\" (known: ok, "
            "error, waived)");

  EXPECT_EQ(error_of_measurement(json::array()),
            "run/measurements.jsonl:12: record is not a JSON object");
}

TEST(MeasurementJsonErrors, SchemaVersionAndKindAreChecked) {
  json j = to_json(full_measurement());
  j["schema_version"] = 2;
  EXPECT_EQ(error_of_measurement(j),
            "run/measurements.jsonl:12: schema_version 2 is not one this build reads (it reads 1)");
  j.erase("schema_version");
  EXPECT_EQ(error_of_measurement(j), "run/measurements.jsonl:12: missing field \"schema_version\"");
  EXPECT_EQ(error_of_measurement(to_json(full_finding())),
            "run/measurements.jsonl:12: field \"kind\" is \"finding\", expected \"measurement\"");
}

TEST(FindingJsonErrors, UnknownSeverityAndMistypedObserved) {
  json j = to_json(full_finding());
  j["severity"] = "critical";
  EXPECT_THROW(
      {
        try {
          finding_from_json(j, "findings.jsonl:3");
        } catch (const ConfigError& error) {
          EXPECT_STREQ(error.what(),
                       "findings.jsonl:3: field \"severity\" has unknown value \"critical\" "
                       "(known: pass, warn, fail, waived, error)");
          throw;
        }
      },
      ConfigError);
  j = to_json(full_finding());
  j["observed"] = true;
  EXPECT_THROW(finding_from_json(j, "findings.jsonl:3"), ConfigError);
}

}  // namespace
}  // namespace fabcheck
