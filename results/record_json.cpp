// JSON form of Measurement and Finding records, both directions, with strict reading.
#include "results/record_json.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>

#include "bench/sys/config_error.hpp"
#include "results/json_text.hpp"
#include "results/record_fields.hpp"

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

json params_to_json(const std::map<std::string, std::string>& params) {
  json object = json::object();
  for (const auto& [key, value] : params) object[key] = value;
  return object;
}

json stats_to_json(const std::optional<SampleStats>& stats);

// A field's value as the record holds it (record_fields.hpp says which field is of which type).
template <typename Value, RecordField kType>
json field_to_json(const Value& value, std::integral_constant<RecordField, kType>) {
  using T = RecordField;
  if constexpr (kType == T::number) {
    return number_or_null(value);
  } else if constexpr (kType == T::optional_size) {
    return optional_size(value);
  } else if constexpr (kType == T::optional_number) {
    return optional_number(value);
  } else if constexpr (kType == T::params) {
    return params_to_json(value);
  } else if constexpr (kType == T::stats) {
    return stats_to_json(value);
  } else if constexpr (kType == T::by_rank) {
    return by_rank_to_json(value);
  } else if constexpr (kType == T::status || kType == T::severity) {
    return to_string(value);
  } else {  // text, integer, count
    return value;
  }
}

json stats_to_json(const std::optional<SampleStats>& stats) {
  if (!stats) return nullptr;
  json object;
  for_each_stats_field([&](const char* name, auto type, auto member) {
    object[name] = field_to_json(member(*stats), type);
  });
  return object;
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
    fail("field \"" + prefix_ + name + "\" must be " + expected + ", got " + json_text(value));
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
    reader.fail("schema_version " + json_text(version) + " is not one this build reads (it reads " +
                std::to_string(kSchemaVersion) + ")");
  }
  const std::string actual = reader.string("kind");
  if (actual != kind) {
    reader.fail("field \"kind\" is \"" + actual + "\", expected \"" + kind + "\"");
  }
}

}  // namespace

json to_json(const Measurement& measurement) {
  json record{{"schema_version", kSchemaVersion}, {"kind", "measurement"}};
  for_each_measurement_field([&](const char* name, auto type, auto member) {
    record[name] = field_to_json(member(measurement), type);
  });
  return record;
}

std::string to_jsonl_line(const json& record) { return json_text(record) + "\n"; }

json to_json(const Finding& finding) {
  json record{{"schema_version", kSchemaVersion}, {"kind", "finding"}};
  for_each_finding_field([&](const char* name, auto type, auto member) {
    record[name] = field_to_json(member(finding), type);
  });
  return record;
}

Measurement measurement_from_json(const json& object, const std::string& where) {
  const FieldReader reader(object, where);
  check_header(reader, "measurement");
  Measurement measurement;
  for_each_measurement_field([&](const char* name, auto type, auto member) {
    using T = RecordField;
    constexpr RecordField kType = decltype(type)::value;
    auto& field = member(measurement);
    if constexpr (kType == T::params) {
      const json& params = reader.field(name);
      if (!params.is_object()) reader.mistyped(name, "an object of strings", params);
      for (const auto& [key, value] : params.items()) {
        if (!value.is_string()) reader.mistyped(std::string(name) + "." + key, "a string", value);
        field[key] = value.template get<std::string>();
      }
    } else if constexpr (kType == T::stats) {
      const json& stats = reader.field(name);
      if (stats.is_null()) return;
      if (!stats.is_object()) reader.mistyped(name, "an object or null", stats);
      const FieldReader stats_reader(stats, where, std::string(name) + ".");
      SampleStats sample_stats;
      for_each_stats_field([&](const char* stat, auto stat_type, auto stat_member) {
        stat_member(sample_stats) = read_plain_field(stats_reader, stat, stat_type);
      });
      field = sample_stats;
    } else if constexpr (kType == T::by_rank) {
      if (!object.contains(name)) return;  // optional: older records have none
      const json& by_rank = object.at(name);
      if (!by_rank.is_array()) reader.mistyped(name, "an array", by_rank);
      for (std::size_t i = 0; i < by_rank.size(); ++i) {
        const std::string prefix = std::string(name) + "[" + std::to_string(i) + "].";
        if (!by_rank[i].is_object()) reader.mistyped(prefix, "an object", by_rank[i]);
        const FieldReader entry(by_rank[i], where, prefix);
        RankFigure figure;
        figure.rank = static_cast<int>(entry.integer("rank"));
        figure.host = entry.string("host");
        figure.value = entry.number("value");
        field.push_back(std::move(figure));
      }
    } else if constexpr (kType == T::status) {
      const std::string status = reader.string(name);
      const auto parsed_status = measurement_status_from_string(status);
      if (!parsed_status) {
        reader.fail("field \"" + std::string(name) + "\" has unknown value \"" + status +
                    "\" (known: ok, error, waived)");
      }
      field = *parsed_status;
    } else {
      field = read_plain_field(reader, name, type);
    }
  });
  return measurement;
}

Finding finding_from_json(const json& object, const std::string& where) {
  const FieldReader reader(object, where);
  check_header(reader, "finding");
  return read_finding_fields(reader);
}

std::string valid_utf8(const std::string& text) {
  const nlohmann::json as_json = text;
  return nlohmann::json::parse(json_text(as_json)).get<std::string>();
}

}  // namespace fabcheck
