// Names of finding severities as they appear in the JSON records and the console.
#include "results/finding.hpp"

namespace fabcheck {

const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::pass:
      return "pass";
    case Severity::warn:
      return "warn";
    case Severity::fail:
      return "fail";
    case Severity::waived:
      return "waived";
    case Severity::error:
      return "error";
  }
  return "unknown";
}

std::optional<Severity> severity_from_string(const std::string& text) {
  if (text == "pass") return Severity::pass;
  if (text == "warn") return Severity::warn;
  if (text == "fail") return Severity::fail;
  if (text == "waived") return Severity::waived;
  if (text == "error") return Severity::error;
  return std::nullopt;
}

const char* severity_label(Severity severity) {
  switch (severity) {
    case Severity::pass:
      return "PASS";
    case Severity::warn:
      return "WARN";
    case Severity::fail:
      return "FAIL";
    case Severity::waived:
      return "WAIVED";
    case Severity::error:
      return "ERROR";
  }
  return "?";
}

}  // namespace fabcheck
