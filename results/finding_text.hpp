// Findings and the verdict as fabcheck prints them for a person, one printer for every output: the
// run's console (each probe's findings after its table, all of them by severity at the end) and the
// commands that judge files (nccl-log, inventory, kernel-log: each finding with its evidence and
// remedy), each ending with the one verdict line (verdict.hpp's verdict_line).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "results/finding.hpp"

namespace fabcheck {

// What a finding line says besides the severity and the message.
enum class FindingNaming {
  message_only,       // "FAIL   <message>": where the probe's table above names what it is about
  probe_and_subject,  // "FAIL   <probe> <subject>: <message>": in a listing of several probes
};

// One finding as one line: its severity padded to six, then what it says.
std::string finding_line(const Finding& finding, FindingNaming naming);

// The evidence and the remedy (a PASS has none to give) as lines under a finding line indented by
// two, the evidence's own lines aligned under its first.
std::string finding_details(const Finding& finding);

// Every finding but the passes, worst first (results/verdict's severity_order), each severity under
// its heading with the finding's subject first, where a person looks:
//   # findings by severity
//   FAIL (1)
//     node02  [coll.all_reduce busbw 1KiB] busbw 0.1 GB/s ...
// and a blank line; "" when there is none.
std::string findings_by_severity(const std::vector<Finding>& findings);

// Prints findings as the commands do: each an indented line naming probe and subject, with its
// details; PASS ones only when `with_pass`; "  (none)" when nothing is shown.
void print_findings(const std::vector<Finding>& findings, bool with_pass, std::FILE* out);

// Prints the verdict line of the findings ("verdict: FAIL (1 pass, 0 warn, 1 fail, 0 waived, 0
// error); exit code 1") and returns that exit code.
int print_verdict(const std::vector<Finding>& findings, std::FILE* out);

}  // namespace fabcheck
