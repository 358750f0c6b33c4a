// A run's verdict from its findings, and the exit code that goes with it.
#include "results/verdict.hpp"

namespace fabcheck {

bool judged_anything(const std::vector<Finding>& findings) {
  for (const Finding& finding : findings) {
    if (finding.severity != Severity::waived) return true;
  }
  return false;
}

Verdict verdict_of(const std::vector<Finding>& findings, bool incomplete) {
  bool any_error = incomplete;
  bool any_warn = false;
  for (const Finding& finding : findings) {
    switch (finding.severity) {
      case Severity::fail:
        return Verdict::fail;
      case Severity::error:
        any_error = true;
        break;
      case Severity::warn:
        any_warn = true;
        break;
      case Severity::pass:
      case Severity::waived:
        break;
    }
  }
  if (any_error) return Verdict::incomplete;
  if (any_warn) return Verdict::warn;
  return Verdict::pass;
}

int severity_order(Severity severity) {
  switch (severity) {
    case Severity::fail:
      return 0;
    case Severity::error:
      return 1;
    case Severity::warn:
      return 2;
    case Severity::waived:
      return 3;
    case Severity::pass:
      return 4;
  }
  return 5;
}

int exit_code_of(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass:
    case Verdict::warn:
      return 0;
    case Verdict::fail:
      return 1;
    case Verdict::incomplete:
      return 3;
  }
  return 3;
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass:
      return "pass";
    case Verdict::warn:
      return "warn";
    case Verdict::fail:
      return "fail";
    case Verdict::incomplete:
      return "incomplete";
  }
  return "unknown";
}

std::map<Severity, int> count_by_severity(const std::vector<Finding>& findings) {
  std::map<Severity, int> counts{{Severity::pass, 0},
                                 {Severity::warn, 0},
                                 {Severity::fail, 0},
                                 {Severity::waived, 0},
                                 {Severity::error, 0}};
  for (const Finding& finding : findings) ++counts[finding.severity];
  return counts;
}

std::string verdict_line(const std::vector<Finding>& findings, bool incomplete) {
  return verdict_line(verdict_of(findings, incomplete), count_by_severity(findings));
}

std::string verdict_line(Verdict verdict, const std::map<Severity, int>& counts,
                         const std::string& drain) {
  std::string name = to_string(verdict);
  for (char& c : name) c = static_cast<char>(c - 'a' + 'A');
  auto count = [&counts](Severity s) {
    const auto found = counts.find(s);
    return std::to_string(found == counts.end() ? 0 : found->second);
  };
  return "verdict: " + name + " (" + count(Severity::pass) + " pass, " + count(Severity::warn) +
         " warn, " + count(Severity::fail) + " fail, " + count(Severity::waived) + " waived, " +
         count(Severity::error) + " error)" + (drain.empty() ? "" : "; drain: " + drain) +
         "; exit code " + std::to_string(exit_code_of(verdict));
}

}  // namespace fabcheck
