// Peer judgement's words: how a figure that stands out among its peers reads as a finding (value,
// gap, side, size, tier, where the expectation came from), and the finding it starts from.
// Internal to results/peer_*.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "results/finding.hpp"
#include "results/fleet_store.hpp"
#include "results/peer_figures.hpp"
#include "results/peer_judge.hpp"
#include "results/robust_stats.hpp"

namespace fabcheck::peers {

// A figure as messages show it: whole above 1000, else four significant digits.
std::string format_value(double value);

class PeerWording {
 public:
  PeerWording(const FleetStore& store, const PeerJudgeOptions& options)
      : store_(store), options_(options) {}

  const std::string& text(std::uint32_t id) const { return store_.strings.text(id); }

  // The finding about `subject` of `host` that `outlier` starts: severity, figure, values, unit.
  Finding base(const Group& group, std::uint32_t host, const std::string& subject,
               const Outlier& outlier) const;

  // " at 1 MiB", or "" for a figure of no size.
  std::string size_words(const Group& group) const;
  // The tier `value` matches and the one expected (the profile's, else the peers' median's).
  std::string tier_words(const Group& group, double value, double reference) const;
  // "42%", or "far" for an infinite gap.
  std::string gap_words(const Outlier& outlier) const;
  // "below" or "above", as the worse side is.
  const char* side_words(const Group& group) const;
  // Where the expectation comes from: the median of `peers` `of`, and the policy's thresholds.
  std::string source_words(std::size_t peers, const char* of) const;
  // "gpu0 812.3, gpu1 815.1, ..." (at most 16 shown).
  std::string listing(const std::vector<std::pair<std::string, double>>& values) const;

 private:
  const FleetStore& store_;
  const PeerJudgeOptions& options_;
};

}  // namespace fabcheck::peers
