// Peer judgement's findings as they are proposed: one per subject and figure (a key saying what it
// is about), kept at its worst size and FAIL when any size failed. Internal to results/peer_*.cpp.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "results/finding.hpp"
#include "results/robust_stats.hpp"

namespace fabcheck::peers {

struct Candidate {
  Finding finding;
  double worst_gap = 0;
  std::size_t sizes = 0;
};
using Candidates = std::map<std::string, Candidate>;  // by what a finding is about

// Keeps `finding` under `key` when it is the first or its gap is the widest so far.
void propose(Candidates& into, const std::string& key, Finding finding, const Outlier& outlier);

// The findings kept, sorted by host, subject, probe and metric; one that stood out at several
// sizes says so.
std::vector<Finding> proposed_findings(Candidates& candidates);

}  // namespace fabcheck::peers
