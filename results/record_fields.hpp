// The fields of the measurement and finding records, in the order a record holds them, as one table
// each (name, type, accessor): the JSON writer and both strict readers (record_json.hpp over a
// JSON document, record_lines.hpp over a parsed line) go through these tables instead of listing
// the fields themselves. results/measurement_scan.cpp's one-pass scan must accept the same fields.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "results/finding.hpp"

namespace fabcheck {

// How a field is written and read.
enum class RecordField {
  text,             // a string
  number,           // a number, null for NaN or infinity
  integer,          // an int
  count,            // a non-negative integer
  optional_size,    // a non-negative integer, or null
  optional_number,  // a number, or null
  params,           // an object of strings
  stats,            // SampleStats (fields: for_each_stats_field), or null
  by_rank,          // an array of RankFigure; absent in older records
  status,           // MeasurementStatus by name ("ok", "error", "waived")
  severity,         // Severity by name ("pass", "warn", "fail", "waived", "error")
};

// The type of a field as a value a generic visitor can test at compile time:
//   [&](const char* name, auto type, auto member) {
//     if constexpr (decltype(type)::value == RecordField::text) member(record) = read(name);
//   }
template <RecordField kType>
inline constexpr std::integral_constant<RecordField, kType> field_type{};

// visit(name, type, member) for each field after "schema_version" and "kind", in order; member(r)
// is the field of `r` (a Measurement, or the views of MeasurementFields; a record type without
// `by_rank` never has that accessor called by a visitor that skips the field).
template <typename Visit>
void for_each_measurement_field(Visit&& visit) {
  using T = RecordField;
  visit(
      "probe", field_type<T::text>, [](auto& r) -> auto& { return r.probe; });
  visit(
      "metric", field_type<T::text>, [](auto& r) -> auto& { return r.metric; });
  visit(
      "value", field_type<T::number>, [](auto& r) -> auto& { return r.value; });
  visit(
      "unit", field_type<T::text>, [](auto& r) -> auto& { return r.unit; });
  visit(
      "host", field_type<T::text>, [](auto& r) -> auto& { return r.host; });
  visit(
      "rank", field_type<T::integer>, [](auto& r) -> auto& { return r.rank; });
  visit(
      "subject", field_type<T::text>, [](auto& r) -> auto& { return r.subject; });
  visit(
      "peer", field_type<T::text>, [](auto& r) -> auto& { return r.peer; });
  visit(
      "size_bytes", field_type<T::optional_size>, [](auto& r) -> auto& { return r.size_bytes; });
  visit(
      "params", field_type<T::params>, [](auto& r) -> auto& { return r.params; });
  visit(
      "stats", field_type<T::stats>, [](auto& r) -> auto& { return r.stats; });
  visit(
      "by_rank", field_type<T::by_rank>, [](auto& r) -> auto& { return r.by_rank; });
  visit(
      "status", field_type<T::status>, [](auto& r) -> auto& { return r.status; });
  visit(
      "message", field_type<T::text>, [](auto& r) -> auto& { return r.message; });
  visit(
      "time_utc", field_type<T::text>, [](auto& r) -> auto& { return r.time_utc; });
}

// The same for the members of "stats" (SampleStats).
template <typename Visit>
void for_each_stats_field(Visit&& visit) {
  using T = RecordField;
  visit(
      "count", field_type<T::count>, [](auto& s) -> auto& { return s.count; });
  visit(
      "min", field_type<T::number>, [](auto& s) -> auto& { return s.min; });
  visit(
      "median", field_type<T::number>, [](auto& s) -> auto& { return s.median; });
  visit(
      "max", field_type<T::number>, [](auto& s) -> auto& { return s.max; });
  visit(
      "p99", field_type<T::number>, [](auto& s) -> auto& { return s.p99; });
  visit(
      "mean", field_type<T::number>, [](auto& s) -> auto& { return s.mean; });
  visit(
      "cv", field_type<T::number>, [](auto& s) -> auto& { return s.cv; });
}

// The same for a Finding.
template <typename Visit>
void for_each_finding_field(Visit&& visit) {
  using T = RecordField;
  visit(
      "severity", field_type<T::severity>, [](auto& f) -> auto& { return f.severity; });
  visit(
      "probe", field_type<T::text>, [](auto& f) -> auto& { return f.probe; });
  visit(
      "metric", field_type<T::text>, [](auto& f) -> auto& { return f.metric; });
  visit(
      "subject", field_type<T::text>, [](auto& f) -> auto& { return f.subject; });
  visit(
      "host", field_type<T::text>, [](auto& f) -> auto& { return f.host; });
  visit(
      "rank", field_type<T::integer>, [](auto& f) -> auto& { return f.rank; });
  visit(
      "size_bytes", field_type<T::optional_size>, [](auto& f) -> auto& { return f.size_bytes; });
  visit(
      "observed", field_type<T::optional_number>, [](auto& f) -> auto& { return f.observed; });
  visit(
      "expected", field_type<T::optional_number>, [](auto& f) -> auto& { return f.expected; });
  visit(
      "warn_at", field_type<T::optional_number>, [](auto& f) -> auto& { return f.warn_at; });
  visit(
      "unit", field_type<T::text>, [](auto& f) -> auto& { return f.unit; });
  visit(
      "message", field_type<T::text>, [](auto& f) -> auto& { return f.message; });
  visit(
      "evidence", field_type<T::text>, [](auto& f) -> auto& { return f.evidence; });
  visit(
      "remedy", field_type<T::text>, [](auto& f) -> auto& { return f.remedy; });
  visit(
      "source", field_type<T::text>, [](auto& f) -> auto& { return f.source; });
}

// A field of one of the plain types through a strict reader: record_json.cpp's FieldReader and
// record_lines.cpp's Fields both have string, number, integer, unsigned_integer, optional_size and
// optional_number, each naming the record's place and the field when it is missing or mistyped.
template <typename Reader, RecordField kType>
auto read_plain_field(const Reader& reader, const char* name,
                      std::integral_constant<RecordField, kType>) {
  using T = RecordField;
  if constexpr (kType == T::text) {
    return reader.string(name);
  } else if constexpr (kType == T::number) {
    return reader.number(name);
  } else if constexpr (kType == T::integer) {
    return reader.integer(name);
  } else if constexpr (kType == T::count) {
    return static_cast<std::size_t>(reader.unsigned_integer(name));
  } else if constexpr (kType == T::optional_size) {
    return reader.optional_size(name);
  } else {
    static_assert(kType == T::optional_number, "a field type each reader reads in its own code");
    return reader.optional_number(name);
  }
}

// A finding's fields through a strict reader (its header already checked), the severity by name.
template <typename Reader>
Finding read_finding_fields(const Reader& reader) {
  Finding finding;
  for_each_finding_field([&](const char* name, auto type, auto member) {
    auto& field = member(finding);
    if constexpr (decltype(type)::value == RecordField::severity) {
      const std::string severity(reader.string(name));
      const auto parsed = severity_from_string(severity);
      if (!parsed) {
        reader.fail("field \"" + std::string(name) + "\" has unknown value \"" + severity +
                    "\" (known: pass, warn, fail, waived, error)");
      }
      field = *parsed;
    } else {
      field = read_plain_field(reader, name, type);
    }
  });
  return finding;
}

}  // namespace fabcheck
