// Findings and the verdict as the commands that judge files print them (nccl-log, inventory,
// kernel-log): each finding with its evidence and remedy, then the verdict line.
#pragma once

#include <cstdio>
#include <vector>

#include "results/finding.hpp"

namespace fabcheck {

// Prints "verdict: FAIL (exit 1)" for the findings and returns that exit code.
int print_verdict(const std::vector<Finding>& findings, std::FILE* out);

// Prints findings as the commands do (severity, subject, message, evidence, remedy); PASS ones
// only when `with_pass`.
void print_findings(const std::vector<Finding>& findings, bool with_pass, std::FILE* out);

}  // namespace fabcheck
