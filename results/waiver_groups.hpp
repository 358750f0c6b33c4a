// Identical waivers merged: the same probe waived for the same reason on several nodes or ranks is
// one line a person reads once ("fabric.ib_ports: no RDMA device (on 3 nodes: n01, n02, n03)").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/finding.hpp"

namespace fabcheck {

// The most nodes one console line names (a waiver's places, the verdict's drain); the rest counted.
inline constexpr std::size_t kMostNodesNamed = 8;

// Why a waiver was waived, without where: the text after "PROBE[ on WHERE] waived: " (the runner's
// and the evaluator's wording), else the whole message (a family judge's own).
std::string waiver_reason(const Finding& waiver);

// The waivers of one probe with one reason, in the order they came.
struct WaiverGroup {
  std::string probe;
  std::string reason;
  std::vector<const Finding*> waivers;
};

// The WAIVED findings among `findings` grouped by probe and waiver_reason(), the groups in the
// order of their first waiver. The findings must outlive the groups.
std::vector<WaiverGroup> waiver_groups(const std::vector<Finding>& findings);

// Where a group's waivers are, "" when they name no host (a probe waived for the whole run):
//   "on n01"                                   one node
//   "on 3 nodes: n01, n02, n03"                several (at most 8 named, then "+N more")
//   "ranks 0-3 on n01", "ranks 0-5, 8 on 3 nodes: n01, n02, n03"
//                                              the ranks, when a node has several of the waivers
//                                              and each names a rank of its own
//   "4 findings on n01"                        a node has several, not each with a rank of its own
std::string waiver_places(const WaiverGroup& group);

// "fabric.ib_ports: no RDMA device (on 3 nodes: n01, n02, n03)"; without places, "PROBE: REASON".
std::string waiver_group_line(const WaiverGroup& group);

}  // namespace fabcheck
