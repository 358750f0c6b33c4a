// JSON form of Measurement and Finding records (one object per line in the .jsonl files).
#pragma once

#include <nlohmann/json.hpp>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// Each record carries "schema_version" and "kind" ("measurement" / "finding").
nlohmann::json to_json(const Measurement& measurement);
nlohmann::json to_json(const Finding& finding);

// A record as a line of a .jsonl file, exactly as a run writes it: compact, keys in order, invalid
// UTF-8 (a log line, a device name) replaced rather than the record lost, ending in a newline.
std::string to_jsonl_line(const nlohmann::json& record);

// Throw ConfigError (with `where`, e.g. "run/measurements.jsonl:12") on a missing or mistyped
// field or a schema version this build does not read.
Measurement measurement_from_json(const nlohmann::json& json, const std::string& where);
Finding finding_from_json(const nlohmann::json& json, const std::string& where);

// `text` as valid UTF-8: invalid bytes replaced by U+FFFD (for formats that require UTF-8).
std::string valid_utf8(const std::string& text);

}  // namespace fabcheck
