// A measurement line read in one pass (no tree, no allocation per record), accepting only lines the
// strict path (JsonLine + read_measurement_fields) accepts, with the same fields.
#pragma once

#include <string_view>

#include "results/record_lines.hpp"

namespace fabcheck {

// Reads one measurements.jsonl line into `out` (its views point into `line`; out.params keeps its
// capacity). The top-level members may come in any order with any JSON whitespace between tokens;
// members the strict reader ignores ("by_rank") are skipped and checked by the JSON grammar, nested
// no deeper than JsonLine's limit (32).
//
// True only when JsonLine::parse + read_measurement_fields would accept the line and give the same
// fields. False for anything not plainly valid, which that path then reads (giving the value or
// the precise error): a string with an escape or a control character, a missing or repeated field,
// a wrong type or value, a number from_chars does not convert exactly, trailing text, too deep a
// nesting. After false, `out` holds no meaning.
bool scan_measurement_line(std::string_view line, MeasurementFields& out);

}  // namespace fabcheck
