// Tests that the records written match results/schema/*.schema.json: the same fields, all required.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "results/record_json.hpp"

namespace fabcheck {
namespace {

using nlohmann::json;

json load_schema(const std::string& name) {
  std::ifstream in(std::string(FABCHECK_SOURCE_DIR) + "/results/schema/" + name);
  EXPECT_TRUE(in.good()) << name;
  return json::parse(in);
}

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

std::set<std::string> required_of(const json& schema) {
  return schema.at("required").get<std::set<std::string>>();
}

TEST(Schema, MeasurementRecordHasExactlyTheSchemaFields) {
  const json schema = load_schema("measurement.schema.json");
  Measurement m;
  m.stats = SampleStats{};
  const json record = to_json(m);
  EXPECT_EQ(keys_of(record), required_of(schema));
  EXPECT_EQ(keys_of(record), keys_of(schema.at("properties")));
  EXPECT_EQ(keys_of(record.at("stats")),
            required_of(schema.at("properties").at("stats").at("oneOf").at(1)));
  EXPECT_EQ(schema.at("properties").at("schema_version").at("const"), kSchemaVersion);
}

TEST(Schema, FindingRecordHasExactlyTheSchemaFields) {
  const json schema = load_schema("finding.schema.json");
  const json record = to_json(Finding{});
  EXPECT_EQ(keys_of(record), required_of(schema));
  EXPECT_EQ(keys_of(record), keys_of(schema.at("properties")));
  EXPECT_EQ(schema.at("properties").at("severity").at("enum"),
            json({"pass", "warn", "fail", "waived", "error"}));
}

TEST(Schema, SummaryNamesTheDocumentedFields) {
  const json schema = load_schema("summary.schema.json");
  EXPECT_EQ(required_of(schema),
            (std::set<std::string>{"schema_version", "kind", "fabcheck_version", "verdict",
                                   "exit_code", "counts", "probes", "hosts", "host_ranks", "ranks",
                                   "command_line", "profile", "started_utc", "finished_utc",
                                   "incomplete_reason", "versions", "environment", "run_dir"}));
  // Fields added since version 1 was first written are documented but not required, so that
  // older summaries still validate.
  std::set<std::string> documented = required_of(schema);
  for (const char* added :
       {"plan", "nodes", "drain", "hold", "across_nodes", "evidence", "timing", "estimate"})
    documented.insert(added);
  EXPECT_EQ(documented, keys_of(schema.at("properties")));
  EXPECT_EQ(schema.at("properties").at("verdict").at("enum"),
            json({"pass", "warn", "fail", "incomplete"}));
}

}  // namespace
}  // namespace fabcheck
