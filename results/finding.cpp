// Names of finding severities as they appear in the JSON records and the console; findings begun
// from a measurement.
#include "results/finding.hpp"

#include <utility>

namespace fabcheck {

Finding finding_about(const Measurement& m, Severity severity) {
  Finding finding;
  finding.severity = severity;
  finding.probe = m.probe;
  finding.metric = m.metric;
  finding.subject = m.subject;
  finding.host = m.host;
  finding.rank = m.rank;
  finding.size_bytes = m.size_bytes;
  finding.observed = m.value;
  finding.unit = m.unit;
  return finding;
}

Finding& FindingAdder::operator()(Severity severity, double expected, std::string message,
                                  std::string remedy) const {
  Finding f = finding_about(measurement_, severity);
  f.expected = expected;
  f.message = std::move(message);
  f.remedy = std::move(remedy);
  f.source = source_;
  out_.push_back(std::move(f));
  return out_.back();
}

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
