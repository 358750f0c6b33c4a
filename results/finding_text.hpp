// Findings and the verdict as fabcheck prints them for a person, one printer for every output: the
// run's console (each probe's findings after its table, all of them by severity at the end, the
// verdict line naming what to drain) and the commands that judge files (nccl-log, inventory,
// kernel-log: each finding with its evidence and remedy), each ending with the one verdict line
// (verdict.hpp's verdict_line).
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

// Every finding but the passes (counted on the verdict line), worst first: FAIL, ERROR, WARN (each
// with its subject first, where a person looks), then the waivers, identical ones merged into one
// line (waiver_groups.hpp), each severity under its heading with its count of findings:
//   # findings by severity
//   FAIL (1)
//     node02  [coll.all_reduce busbw 1KiB] busbw 0.1 GB/s ...
//   WAIVED (3)
//     fabric.ib_ports: no RDMA device (nothing in /sys/class/infiniband) (on 3 nodes: n01, n02,
//     n03)
// and a blank line; "" when there is none.
std::string findings_by_severity(const std::vector<Finding>& findings);

// What to drain, as the verdict line says it: each node a FAIL names alone (node_verdicts.hpp, as
// summary.json's "drain" and `fabcheck answer`), with its first FAIL's probe and message as one
// line cut to 80 bytes and how many more FAILs name it: "node02 (coll.node_pairs: slow node ...),
// node05 (gpu.hbm_bw: ..., +2 more)"; at most 8 nodes, then "+N more nodes"; "" when none is.
// `hosts`: the run's.
std::string drain_clause(const std::vector<Finding>& findings,
                         const std::vector<std::string>& hosts);

// A run's verdict line, naming what to drain where a node is:
//   verdict: FAIL (3 pass, 0 warn, 1 fail, 6 waived, 0 error); drain: node02 (...); exit code 1
std::string run_verdict_line(const std::vector<Finding>& findings,
                             const std::vector<std::string>& hosts, bool incomplete);

// Prints findings as the commands do: each an indented line naming probe and subject, with its
// details; PASS ones only when `with_pass`; "  (none)" when nothing is shown.
void print_findings(const std::vector<Finding>& findings, bool with_pass, std::FILE* out);

// Prints the verdict line of the findings ("verdict: FAIL (1 pass, 0 warn, 1 fail, 0 waived, 0
// error); exit code 1") and returns that exit code.
int print_verdict(const std::vector<Finding>& findings, std::FILE* out);

}  // namespace fabcheck
