// Peer judgement's findings as proposed, one per key at its worst size.
#include "results/peer_candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace fabcheck::peers {

void propose(Candidates& into, const std::string& key, Finding finding, const Outlier& outlier) {
  auto [it, added] = into.try_emplace(key);
  Candidate& c = it->second;
  ++c.sizes;
  const double gap = std::fabs(outlier.relative_gap);
  if (added || gap > c.worst_gap) {
    const Severity severity =
        !added && c.finding.severity == Severity::fail ? Severity::fail : finding.severity;
    c.finding = std::move(finding);
    c.finding.severity = severity;
    c.worst_gap = gap;
  } else if (finding.severity == Severity::fail) {
    c.finding.severity = Severity::fail;
  }
}

std::vector<Finding> proposed_findings(Candidates& candidates) {
  std::vector<Finding> findings;
  for (auto& [key, candidate] : candidates) {
    Finding& f = candidate.finding;
    if (candidate.sizes > 1) {
      f.message += fmt::format(" [stands out at {} sizes; the worst shown]", candidate.sizes);
    }
    findings.push_back(std::move(f));
  }
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.host, a.subject, a.probe, a.metric) <
           std::tie(b.host, b.subject, b.probe, b.metric);
  });
  return findings;
}

}  // namespace fabcheck::peers
