// Finding: a judgement of one or more measurements against a profile, with evidence and a remedy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fabcheck {

// How one judgement came out; verdict.hpp derives a run's verdict from all of them.
enum class Severity { pass, warn, fail, waived, error };

struct Finding {
  Severity severity = Severity::pass;
  std::string probe;
  std::string metric;
  std::string subject;
  std::string host;
  int rank = -1;
  std::optional<std::uint64_t> size_bytes;
  std::optional<double> observed;
  std::optional<double> expected;  // the pass threshold
  std::optional<double> warn_at;   // the warn threshold
  std::string unit;
  std::string message;   // one line a person reads first
  std::string evidence;  // the measurement or log line it rests on
  std::string remedy;    // what to do about it
  std::string source;    // where the expected figure comes from
};

const char* to_string(Severity severity);       // "pass"
const char* severity_label(Severity severity);  // "PASS", for consoles
std::optional<Severity> severity_from_string(const std::string& text);

}  // namespace fabcheck
