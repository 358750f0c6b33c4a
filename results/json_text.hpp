// JSON text as fabcheck writes it, one way for every file, line and message: bytes that are not
// valid UTF-8 (a kernel-log line, a host name, a storage path) become U+FFFD instead of making
// nlohmann throw type_error.316 (which, uncaught, ends a rank with SIGABRT). Product code calls
// nothing else to serialise JSON (tests/structure/json_dump_rule_test.cmake checks it).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fabcheck {

// `value` as JSON text: compact (indent -1) or pretty (indent >= 0), non-ASCII kept as UTF-8,
// invalid UTF-8 replaced; never throws for the bytes a string holds.
std::string json_text(const nlohmann::json& value, int indent = -1);

}  // namespace fabcheck
