// Strict field access on parsed JSON lines: measurement and finding records.
#include "results/record_lines.hpp"

#include <limits>
#include <type_traits>

#include "bench/sys/config_error.hpp"
#include "results/record_fields.hpp"

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
  for_each_measurement_field([&](const char* name, auto type, auto member) {
    using T = RecordField;
    constexpr RecordField kType = decltype(type)::value;
    if constexpr (kType == T::params) {
      out.params.clear();
      const Node& params = fields.field(name);
      if (params.kind != Kind::object) fields.mistyped(name, "an object of strings", params);
      json.for_each_child(params, [&](const Node& value) {
        if (value.kind != Kind::string) {
          fields.mistyped(std::string(name) + "." + std::string(value.key), "a string", value);
        }
        out.params.emplace_back(value.key, value.text);
      });
    } else if constexpr (kType == T::stats) {
      const Node& stats = fields.field(name);
      out.stats.reset();
      if (stats.kind == Kind::null) return;
      if (stats.kind != Kind::object) fields.mistyped(name, "an object or null", stats);
      const Fields stat(json, stats, place, "stats.");
      SampleStats s;
      for_each_stats_field([&](const char* stat_name, auto stat_type, auto stat_member) {
        stat_member(s) = read_plain_field(stat, stat_name, stat_type);
      });
      out.stats = s;
    } else if constexpr (kType == T::by_rank) {
      // Not read: MeasurementFields keeps no per-rank figures (the fleet reads combined ones).
    } else if constexpr (kType == T::status) {
      out.status_text = fields.string(name);
      if (out.status_text == "ok") {
        out.status = MeasurementStatus::ok;
      } else if (out.status_text == "error") {
        out.status = MeasurementStatus::error;
      } else if (out.status_text == "waived") {
        out.status = MeasurementStatus::waived;
      } else {
        fields.fail("field \"" + std::string(name) + "\" has unknown value \"" +
                    std::string(out.status_text) + "\" (known: ok, error, waived)");
      }
    } else {
      member(out) = read_plain_field(fields, name, type);
    }
  });
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
  return read_finding_fields(fields);
}

}  // namespace fabcheck
