// Verdict of a run from its findings, and the exit code the scheduler acts on.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "results/finding.hpp"

namespace fabcheck {

enum class Verdict { pass, warn, fail, incomplete };

// fail if any FAIL; else incomplete if any ERROR (or `incomplete` is set: a probe timed out, the
// run was interrupted); else warn if any WARN; else pass. WAIVED findings never change it. A run
// that judged nothing is made incomplete by the runner (judged_anything), not here: a clean
// kernel log with no finding is a pass.
Verdict verdict_of(const std::vector<Finding>& findings, bool incomplete = false);

// Some finding is a judgement (PASS, WARN, FAIL or ERROR), not only WAIVED ones.
bool judged_anything(const std::vector<Finding>& findings);

// 0 pass or warn, 1 fail, 3 incomplete (2 is for usage errors, decided before any run).
int exit_code_of(Verdict verdict);

const char* to_string(Verdict verdict);

// Worst first: FAIL 0, ERROR 1, WARN 2, WAIVED 3, PASS 4 (for sorting findings by severity).
int severity_order(Severity severity);

std::map<Severity, int> count_by_severity(const std::vector<Finding>& findings);

// "verdict: PASS (12 pass, 0 warn, 0 fail, 2 waived, 0 error); exit code 0"
std::string verdict_line(const std::vector<Finding>& findings, bool incomplete = false);
// The same line from counts kept elsewhere (a fleet evaluation counts PASS findings it never
// keeps); with `drain` ("node02 (...)", finding_text.hpp's drain_clause) it says what to drain
// before the exit code: "verdict: FAIL (...); drain: node02 (...); exit code 1".
std::string verdict_line(Verdict verdict, const std::map<Severity, int>& counts,
                         const std::string& drain = "");

}  // namespace fabcheck
