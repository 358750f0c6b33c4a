// JSON form of Measurement and Finding records, both directions, with strict reading.
#include "results/record_json.hpp"

#include <cmath>
#include <limits>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: they are written as null.
json number_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json optional_number(const std::optional<double>& value) {
  return value ? number_or_null(*value) : json(nullptr);
}

json optional_size(const std::optional<std::uint64_t>& value) {
  return value ? json(*value) : json(nullptr);
}

json by_rank_to_json(const std::vector<RankFigure>& figures) {
  json list = json::array();
  for (const auto& figure : figures) {
    list.push_back(
        {{"rank", figure.rank}, {"host", figure.host}, {"value", number_or_null(figure.value)}});
  }
  return list;
}

json stats_to_json(const std::optional<SampleStats>& stats) {
  if (!stats) return nullptr;
  return json{{"count", stats->count},
              {"min", number_or_null(stats->min)},
              {"median", number_or_null(stats->median)},
              {"max", number_or_null(stats->max)},
              {"p99", number_or_null(stats->p99)},
              {"mean", number_or_null(stats->mean)},
              {"cv", number_or_null(stats->cv)}};
}

// Strict field access: every reader names the record's place and the field.
class FieldReader {
 public:
  FieldReader(const json& object, const std::string& where, std::string prefix = "")
      : object_(object), where_(where), prefix_(std::move(prefix)) {
    if (!object_.is_object()) fail("record is not a JSON object");
  }

  const json& field(const std::string& name) const {
    const auto it = object_.find(name);
    if (it == object_.end()) fail("missing field \"" + prefix_ + name + "\"");
    return *it;
  }

  std::string string(const std::string& name) const {
    const json& value = field(name);
    if (!value.is_string()) mistyped(name, "a string", value);
    return value.get<std::string>();
  }

  int integer(const std::string& name) const {
    const json& value = field(name);
    if (!value.is_number_integer()) mistyped(name, "an integer", value);
    const auto number = value.get<std::int64_t>();
    if (number < std::numeric_limits<int>::min() || number > std::numeric_limits<int>::max()) {
      mistyped(name, "an int", value);
    }
    return static_cast<int>(number);
  }

  // Numbers; null stands for a non-finite value that JSON could not hold.
  double number(const std::string& name) const {
    const json& value = field(name);
    if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value.is_number()) mistyped(name, "a number or null", value);
    return value.get<double>();
  }

  std::optional<double> optional_number(const std::string& name) const {
    const json& value = field(name);
    if (value.is_null()) return std::nullopt;
    if (!value.is_number()) mistyped(name, "a number or null", value);
    return value.get<double>();
  }

  std::uint64_t unsigned_integer(const std::string& name) const {
    const json& value = field(name);
    if (!value.is_number_unsigned()) mistyped(name, "a non-negative integer", value);
    return value.get<std::uint64_t>();
  }

  std::optional<std::uint64_t> optional_size(const std::string& name) const {
    if (field(name).is_null()) return std::nullopt;
    return unsigned_integer(name);
  }

  [[noreturn]] void mistyped(const std::string& name, const std::string& expected,
                             const json& value) const {
    fail("field \"" + prefix_ + name + "\" must be " + expected + ", got " +
         value.dump(-1, ' ', false, json::error_handler_t::replace));
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError(where_ + ": " + message);
  }

 private:
  const json& object_;
  const std::string& where_;
  std::string prefix_;
};

void check_header(const FieldReader& reader, const std::string& kind) {
  const json& version = reader.field("schema_version");
  if (!version.is_number_integer()) reader.mistyped("schema_version", "an integer", version);
  if (version.get<std::int64_t>() != kSchemaVersion) {
    reader.fail("schema_version " + version.dump() + " is not one this build reads (it reads " +
                std::to_string(kSchemaVersion) + ")");
  }
  const std::string actual = reader.string("kind");
  if (actual != kind) {
    reader.fail("field \"kind\" is \"" + actual + "\", expected \"" + kind + "\"");
  }
}

}  // namespace

json to_json(const Measurement& measurement) {
  json params = json::object();
  for (const auto& [key, value] : measurement.params) params[key] = value;
  return json{{"schema_version", kSchemaVersion},
              {"kind", "measurement"},
              {"probe", measurement.probe},
              {"metric", measurement.metric},
              {"value", number_or_null(measurement.value)},
              {"unit", measurement.unit},
              {"host", measurement.host},
              {"rank", measurement.rank},
              {"subject", measurement.subject},
              {"peer", measurement.peer},
              {"size_bytes", optional_size(measurement.size_bytes)},
              {"params", params},
              {"stats", stats_to_json(measurement.stats)},
              {"by_rank", by_rank_to_json(measurement.by_rank)},
              {"status", to_string(measurement.status)},
              {"message", measurement.message},
              {"time_utc", measurement.time_utc}};
}

std::string to_jsonl_line(const json& record) {
  return record.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json to_json(const Finding& finding) {
  return json{{"schema_version", kSchemaVersion},
              {"kind", "finding"},
              {"severity", to_string(finding.severity)},
              {"probe", finding.probe},
              {"metric", finding.metric},
              {"subject", finding.subject},
              {"host", finding.host},
              {"rank", finding.rank},
              {"size_bytes", optional_size(finding.size_bytes)},
              {"observed", optional_number(finding.observed)},
              {"expected", optional_number(finding.expected)},
              {"warn_at", optional_number(finding.warn_at)},
              {"unit", finding.unit},
              {"message", finding.message},
              {"evidence", finding.evidence},
              {"remedy", finding.remedy},
              {"source", finding.source}};
}

Measurement measurement_from_json(const json& object, const std::string& where) {
  const FieldReader reader(object, where);
  check_header(reader, "measurement");
  Measurement measurement;
  measurement.probe = reader.string("probe");
  measurement.metric = reader.string("metric");
  measurement.value = reader.number("value");
  measurement.unit = reader.string("unit");
  measurement.host = reader.string("host");
  measurement.rank = reader.integer("rank");
  measurement.subject = reader.string("subject");
  measurement.peer = reader.string("peer");
  measurement.size_bytes = reader.optional_size("size_bytes");

  const json& params = reader.field("params");
  if (!params.is_object()) reader.mistyped("params", "an object of strings", params);
  for (const auto& [key, value] : params.items()) {
    if (!value.is_string()) reader.mistyped("params." + key, "a string", value);
    measurement.params[key] = value.get<std::string>();
  }

  const json& stats = reader.field("stats");
  if (!stats.is_null()) {
    if (!stats.is_object()) reader.mistyped("stats", "an object or null", stats);
    const FieldReader stats_reader(stats, where, "stats.");
    SampleStats sample_stats;
    sample_stats.count = static_cast<std::size_t>(stats_reader.unsigned_integer("count"));
    sample_stats.min = stats_reader.number("min");
    sample_stats.median = stats_reader.number("median");
    sample_stats.max = stats_reader.number("max");
    sample_stats.p99 = stats_reader.number("p99");
    sample_stats.mean = stats_reader.number("mean");
    sample_stats.cv = stats_reader.number("cv");
    measurement.stats = sample_stats;
  }

  if (object.contains("by_rank")) {  // optional: older records have none
    const json& by_rank = object.at("by_rank");
    if (!by_rank.is_array()) reader.mistyped("by_rank", "an array", by_rank);
    for (std::size_t i = 0; i < by_rank.size(); ++i) {
      const std::string prefix = "by_rank[" + std::to_string(i) + "].";
      if (!by_rank[i].is_object()) reader.mistyped(prefix, "an object", by_rank[i]);
      const FieldReader entry(by_rank[i], where, prefix);
      RankFigure figure;
      figure.rank = static_cast<int>(entry.integer("rank"));
      figure.host = entry.string("host");
      figure.value = entry.number("value");
      measurement.by_rank.push_back(std::move(figure));
    }
  }

  const std::string status = reader.string("status");
  const auto parsed_status = measurement_status_from_string(status);
  if (!parsed_status) {
    reader.fail("field \"status\" has unknown value \"" + status + "\" (known: ok, error, waived)");
  }
  measurement.status = *parsed_status;
  measurement.message = reader.string("message");
  measurement.time_utc = reader.string("time_utc");
  return measurement;
}

Finding finding_from_json(const json& object, const std::string& where) {
  const FieldReader reader(object, where);
  check_header(reader, "finding");
  Finding finding;
  const std::string severity = reader.string("severity");
  const auto parsed_severity = severity_from_string(severity);
  if (!parsed_severity) {
    reader.fail("field \"severity\" has unknown value \"" + severity +
                "\" (known: pass, warn, fail, waived, error)");
  }
  finding.severity = *parsed_severity;
  finding.probe = reader.string("probe");
  finding.metric = reader.string("metric");
  finding.subject = reader.string("subject");
  finding.host = reader.string("host");
  finding.rank = reader.integer("rank");
  finding.size_bytes = reader.optional_size("size_bytes");
  finding.observed = reader.optional_number("observed");
  finding.expected = reader.optional_number("expected");
  finding.warn_at = reader.optional_number("warn_at");
  finding.unit = reader.string("unit");
  finding.message = reader.string("message");
  finding.evidence = reader.string("evidence");
  finding.remedy = reader.string("remedy");
  finding.source = reader.string("source");
  return finding;
}

std::string valid_utf8(const std::string& text) {
  const nlohmann::json as_json = text;
  return nlohmann::json::parse(
             as_json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .get<std::string>();
}

}  // namespace fabcheck
