// Finding: a judgement of one or more measurements against a profile, with evidence and a remedy;
// and the two ways a judge starts one from a measurement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/measurement.hpp"

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

// A finding about one measurement: probe, metric, subject, host, rank, size, observed value and
// unit copied from it; message, evidence and remedy left for the caller (evaluator or judge).
Finding finding_about(const Measurement& measurement, Severity severity);

// Appends findings about one measurement to `out` the way a family judge's rules word them: each
// rule gives a severity, the expected value, the message and the remedy; `source` (where the
// expectation comes from, "" for none) is the same on all of them.
//   const FindingAdder add(m, out, "pre-flight: a node is measured idle");
//   if (m.value > 0) add(Severity::fail, 0, "GPU ... is in use", "find the process ...");
class FindingAdder {
 public:
  FindingAdder(const Measurement& measurement, std::vector<Finding>& out, std::string source = {})
      : measurement_(measurement), out_(out), source_(std::move(source)) {}

  // The finding added (the caller may add evidence).
  Finding& operator()(Severity severity, double expected, std::string message,
                      std::string remedy) const;

 private:
  const Measurement& measurement_;
  std::vector<Finding>& out_;
  std::string source_;
};

}  // namespace fabcheck
