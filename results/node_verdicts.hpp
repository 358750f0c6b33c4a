// Per-node answers of a run, for schedulers: a verdict for each node from the findings that name it
// alone, and what to do with each node that did not pass (drain it: a FAIL; hold it: the run did
// not finish there) with the reason the scheduler records ("fabcheck: ...").
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/finding.hpp"
#include "results/repair.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

struct NodeVerdict {
  std::string host;
  Verdict verdict = Verdict::pass;
  std::map<Severity, int> counts;     // every severity present, zeros included
  std::vector<std::size_t> findings;  // indices of its FAIL, ERROR and WARN findings, worst first
};

// What a scheduler should do with a node: "drain" (a FAIL names it) or "hold" (its run, or a
// probe on it, did not finish: "fabcheck: incomplete: ..."). Both take the node out of service;
// the reason says which, and why.
struct NodeAction {
  std::string host;
  std::string action;  // "drain" or "hold"
  std::string reason;  // "fabcheck: <the first FAIL's message> (+2 more)", printable, bounded
  std::string code;    // what is wrong, for automation (results/repair.hpp): "pcie-link-degraded"
  std::string repair;  // the first repair to try: "reseat"; a hold's is "rerun"
  // A drain: noisy_figure when every FAIL naming the node is one (fail_streak may wait for it
  // to repeat), fact when any is a fact; a hold: fact.
  FailKind kind = FailKind::fact;
};

// The hosts a finding names, decided from `hosts` (the run's hosts), never from a character in a
// name: a finding whose host is one of `hosts` names that node (a name holding a comma included);
// one whose host joins two or more of `hosts` with commas (a figure measured across them, a
// collective: "node-a,node-b") names each of them; any other names the node it says. Empty: none.
std::vector<std::string> hosts_named(const Finding& finding, const std::vector<std::string>& hosts);

// Whether a finding names one node (hosts_named() gives one). Figures measured across several
// hosts belong to no single node: a FAIL among them fails the run without draining anyone, since
// the fault may lie in any of them or between them.
bool names_one_node(const Finding& finding, const std::vector<std::string>& hosts);

// One verdict per host of `hosts` (in that order; a host a finding names that is not in `hosts`
// is added after them): verdict_of() of its findings, incomplete for every host when `incomplete`
// (the run ended early). The same rule `fabcheck evaluate` applies to each node of a fleet.
std::vector<NodeVerdict> node_verdicts(const std::vector<Finding>& findings,
                                       const std::vector<std::string>& hosts, bool incomplete);

// Drain for FAIL nodes, hold for incomplete ones (with `incomplete_reason`, or the first ERROR),
// nothing for pass and warn. A drain's code and repair come from its first FAIL by the rules of
// that FAIL's probe (`repairs`: every probe's ProbeInfo::repairs).
std::vector<NodeAction> node_actions(const std::vector<NodeVerdict>& nodes,
                                     const std::vector<Finding>& findings,
                                     const std::string& incomplete_reason,
                                     const RepairTable& repairs = {});

// A node held because its run did not finish: "fabcheck: incomplete[: why]", code "incomplete",
// repair "rerun".
NodeAction hold_action(const std::string& host, const std::string& why);

// One drain or hold as summary.json writes it: {host, reason, code, repair}, and a drain's noisy.
nlohmann::json node_action_json(const NodeAction& action);

// `text` as one printable line: valid UTF-8, newlines and other control characters spaces (never
// two in a row, none at either end), cut to at most `limit` bytes (on a UTF-8 boundary, ending in
// "...").
std::string printable_line(const std::string& text, std::size_t limit);

// The reason text: printable_line("fabcheck: " + `what`, limit) with quotes and backslashes as `.
std::string scheduler_reason(const std::string& what, std::size_t limit = 200);

// The remedy a FAIL finding naming one node carries first: "drain node07: <message>", then the
// finding's own remedy; other findings' remedies are returned unchanged.
std::string remedy_with_operator_action(const Finding& finding,
                                        const std::vector<std::string>& hosts);

// summary.json's "nodes" (verdict, counts and the five worst findings of each), "drain" and
// "hold" (host and reason each), and "across_nodes" (FAIL findings that name several hosts).
nlohmann::json node_answers_json(const std::vector<NodeVerdict>& nodes,
                                 const std::vector<NodeAction>& actions,
                                 const std::vector<Finding>& findings);

}  // namespace fabcheck
