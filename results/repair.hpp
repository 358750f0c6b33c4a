// What an operator does about a node fabcheck takes out: a stable code for automation and the first
// repair to try, from the finding the node's reason names (issue 22: a reason code and suggested
// repair beside each drain, as NHC's notes and DCGM's diagnostics give them). Each probe declares
// its own rules (ProbeInfo::repairs); the run hands them here as a table by probe id.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "results/finding.hpp"

namespace fabcheck {

// The repairs, in the words automation matches on.
namespace repair_action {
inline constexpr const char* reboot = "reboot";                // driver, Xid, NVLink, pending remap
inline constexpr const char* reseat = "reseat";                // a PCIe link below width or speed
inline constexpr const char* replace_cable = "replace-cable";  // an IB/RoCE port or link
inline constexpr const char* rma = "rma";                      // wrong bits, a failed row remap
inline constexpr const char* inspect = "inspect";              // slow with no one part to blame
inline constexpr const char* rerun = "rerun";                  // the run did not finish
}  // namespace repair_action

// Whether one FAIL is enough to take a node out: a fact (a link trained low, an Xid, wrong bits,
// a port down) is; a throughput or latency figure below its tier may be noise, and an operator's
// fail_streak (results/fail_streak.hpp) may wait for it to repeat before draining.
enum class FailKind { fact, noisy_figure };

// One rule of a probe: a FAIL of a metric matching `metric` ("" any; "x*" a prefix; "*x" a
// suffix; "*x*" a part; else the whole name) is `code`, repaired first by `action`.
struct RepairRule {
  std::string metric;
  std::string code;    // "pcie-link-degraded": lowercase words joined by '-'
  std::string action;  // one of repair_action
  FailKind kind = FailKind::fact;  // fact unless the rule says a figure (fails closed)
};

struct Repair {
  std::string code;
  std::string action;
  FailKind kind = FailKind::fact;
};

// Probe id -> its rules, in order (the first that matches decides).
using RepairTable = std::map<std::string, std::vector<RepairRule>, std::less<>>;

bool repair_metric_matches(const std::string& pattern, const std::string& metric);

// The repair for a FAIL by its probe's rules; "unclassified"/"inspect" (a fact) when none matches.
Repair repair_of(const Finding& finding, const RepairTable& table);

// A node held because the run did not finish.
Repair repair_of_incomplete();

}  // namespace fabcheck
