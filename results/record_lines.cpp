// Strict field access on parsed JSON lines: measurement and finding records.
#include "results/record_lines.hpp"

#include <limits>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using Kind = JsonLine::Kind;
using Node = JsonLine::Node;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::null:
      return "null";
    case Kind::boolean:
      return "a boolean";
    case Kind::number:
      return "a number";
    case Kind::string:
      return "a string";
    case Kind::object:
      return "an object";
    case Kind::array:
      return "an array";
  }
  return "?";
}

// Field access naming the record's place; `prefix` names an enclosing object ("stats.").
class Fields {
 public:
  Fields(const JsonLine& json, const Node& object, const RecordPlace& place, const char* prefix)
      : json_(json), object_(object), place_(place), prefix_(prefix) {
    if (object.kind != Kind::object) fail("record is not a JSON object");
  }

  const Node& field(std::string_view name) const {
    const Node* node = json_.member(object_, name, cursor_);
    if (node == nullptr) fail("missing field \"" + std::string(prefix_) + std::string(name) + "\"");
    return *node;
  }

  std::string_view string(std::string_view name) const {
    const Node& node = field(name);
    if (node.kind != Kind::string) mistyped(name, "a string", node);
    return node.text;
  }

  // A number; null stands for a value JSON could not hold (NaN, infinity).
  double number(std::string_view name) const {
    const Node& node = field(name);
    if (node.kind == Kind::null) return kNaN;
    const auto value = JsonLine::as_double(node);
    if (!value) mistyped(name, "a number or null", node);
    return *value;
  }

  std::optional<double> optional_number(std::string_view name) const {
    const Node& node = field(name);
    if (node.kind == Kind::null) return std::nullopt;
    const auto value = JsonLine::as_double(node);
    if (!value) mistyped(name, "a number or null", node);
    return value;
  }

  int integer(std::string_view name) const {
    const Node& node = field(name);
    const auto value = JsonLine::as_int64(node);
    if (!value || *value < std::numeric_limits<int>::min() ||
        *value > std::numeric_limits<int>::max()) {
      mistyped(name, "an int", node);
    }
    return static_cast<int>(*value);
  }

  std::uint64_t unsigned_integer(std::string_view name) const {
    const Node& node = field(name);
    const auto value = JsonLine::as_uint64(node);
    if (!value) mistyped(name, "a non-negative integer", node);
    return *value;
  }

  std::optional<std::uint64_t> optional_size(std::string_view name) const {
    if (field(name).kind == Kind::null) return std::nullopt;
    return unsigned_integer(name);
  }

  [[noreturn]] void mistyped(std::string_view name, const char* expected, const Node& node) const {
    std::string got = kind_name(node.kind);
    if (node.kind == Kind::number || node.kind == Kind::string) {
      std::string text(node.text.substr(0, 40));
      got += node.kind == Kind::string ? " \"" + text + "\"" : " " + text;
    }
    fail("field \"" + std::string(prefix_) + std::string(name) + "\" must be " + expected +
         ", got " + got);
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError(place_.describe() + ": " + message);
  }

 private:
  const JsonLine& json_;
  const Node& object_;
  const RecordPlace& place_;
  const char* prefix_;
  // Where the next field is looked for first: records are read in the order they were written.
  mutable std::uint32_t cursor_ = 0;
};

void check_header(const Fields& fields, std::string_view kind) {
  const Node& version = fields.field("schema_version");
  const auto number = JsonLine::as_int64(version);
  if (!number) fields.mistyped("schema_version", "an integer", version);
  if (*number != kSchemaVersion) {
    fields.fail("schema_version " + std::to_string(*number) +
                " is not one this build reads (it reads " + std::to_string(kSchemaVersion) + ")");
  }
  const std::string_view actual = fields.string("kind");
  if (actual != kind) {
    fields.fail("field \"kind\" is \"" + std::string(actual) + "\", expected \"" +
                std::string(kind) + "\"");
  }
}

}  // namespace

std::string RecordPlace::describe() const {
  return (file ? *file : std::string("record")) + ":" + std::to_string(line);
}

std::string_view record_kind(const JsonLine& json) {
  const Node* kind = json.member(json.root(), "kind");
  return kind != nullptr && kind->kind == Kind::string ? kind->text : std::string_view();
}

void read_measurement_fields(const JsonLine& json, const RecordPlace& place,
                             MeasurementFields& out) {
  const Fields fields(json, json.root(), place, "");
  check_header(fields, "measurement");
  out.probe = fields.string("probe");
  out.metric = fields.string("metric");
  out.value = fields.number("value");
  out.unit = fields.string("unit");
  out.host = fields.string("host");
  out.rank = fields.integer("rank");
  out.subject = fields.string("subject");
  out.peer = fields.string("peer");
  out.size_bytes = fields.optional_size("size_bytes");

  out.params.clear();
  const Node& params = fields.field("params");
  if (params.kind != Kind::object) fields.mistyped("params", "an object of strings", params);
  json.for_each_child(params, [&](const Node& value) {
    if (value.kind != Kind::string) {
      fields.mistyped("params." + std::string(value.key), "a string", value);
    }
    out.params.emplace_back(value.key, value.text);
  });

  const Node& stats = fields.field("stats");
  out.stats.reset();
  if (stats.kind != Kind::null) {
    if (stats.kind != Kind::object) fields.mistyped("stats", "an object or null", stats);
    const Fields stat(json, stats, place, "stats.");
    SampleStats s;
    s.count = static_cast<std::size_t>(stat.unsigned_integer("count"));
    s.min = stat.number("min");
    s.median = stat.number("median");
    s.max = stat.number("max");
    s.p99 = stat.number("p99");
    s.mean = stat.number("mean");
    s.cv = stat.number("cv");
    out.stats = s;
  }

  out.status_text = fields.string("status");
  if (out.status_text == "ok") {
    out.status = MeasurementStatus::ok;
  } else if (out.status_text == "error") {
    out.status = MeasurementStatus::error;
  } else if (out.status_text == "waived") {
    out.status = MeasurementStatus::waived;
  } else {
    fields.fail("field \"status\" has unknown value \"" + std::string(out.status_text) +
                "\" (known: ok, error, waived)");
  }
  out.message = fields.string("message");
  out.time_utc = fields.string("time_utc");
}

Measurement to_measurement(const MeasurementFields& f) {
  Measurement m;
  m.probe = f.probe;
  m.metric = f.metric;
  m.value = f.value;
  m.unit = f.unit;
  m.host = f.host;
  m.rank = f.rank;
  m.subject = f.subject;
  m.peer = f.peer;
  m.size_bytes = f.size_bytes;
  for (const auto& [key, value] : f.params) m.params[std::string(key)] = std::string(value);
  m.stats = f.stats;
  m.status = f.status;
  m.message = f.message;
  m.time_utc = f.time_utc;
  return m;
}

Finding read_finding_line(const JsonLine& json, const RecordPlace& place) {
  const Fields fields(json, json.root(), place, "");
  check_header(fields, "finding");
  Finding finding;
  const std::string_view severity = fields.string("severity");
  const auto parsed = severity_from_string(std::string(severity));
  if (!parsed) {
    fields.fail("field \"severity\" has unknown value \"" + std::string(severity) +
                "\" (known: pass, warn, fail, waived, error)");
  }
  finding.severity = *parsed;
  finding.probe = fields.string("probe");
  finding.metric = fields.string("metric");
  finding.subject = fields.string("subject");
  finding.host = fields.string("host");
  finding.rank = fields.integer("rank");
  finding.size_bytes = fields.optional_size("size_bytes");
  finding.observed = fields.optional_number("observed");
  finding.expected = fields.optional_number("expected");
  finding.warn_at = fields.optional_number("warn_at");
  finding.unit = fields.string("unit");
  finding.message = fields.string("message");
  finding.evidence = fields.string("evidence");
  finding.remedy = fields.string("remedy");
  finding.source = fields.string("source");
  return finding;
}

}  // namespace fabcheck
