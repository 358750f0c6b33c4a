// Peer judgement's words for the findings it makes.
#include "results/peer_wording.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "results/tiers.hpp"
#include "results/units.hpp"

namespace fabcheck::peers {

std::string format_value(double value) {
  if (std::fabs(value) >= 1000) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

std::string PeerWording::size_words(const Group& group) const {
  return group.key.size == kNoSize ? std::string() : " at " + format_bytes(group.key.size);
}

std::string PeerWording::tier_words(const Group& group, double value, double reference) const {
  if (options_.profile == nullptr) return "";
  const std::optional<std::uint64_t> size =
      group.key.size == kNoSize ? std::nullopt : std::optional<std::uint64_t>(group.key.size);
  const TierPath* path =
      tier_path_for(*options_.profile, text(group.key.probe), text(group.key.metric), size);
  if (path == nullptr) return "";
  std::string expected = path->expect;
  if (expected.empty()) {  // no tier named: the peers' median says what this path reaches
    const TierMatch peers = classify_tier(*path, reference);
    if (!peers.matched.empty()) expected = peers.matched.front()->name;
  }
  return tier_note(*options_.profile, text(group.key.probe), text(group.key.metric), size, value,
                   expected);
}

Finding PeerWording::base(const Group& group, std::uint32_t host, const std::string& subject,
                          const Outlier& outlier) const {
  Finding f;
  f.severity = outlier.fail ? Severity::fail : Severity::warn;
  f.probe = text(group.key.probe);
  f.metric = text(group.key.metric);
  f.subject = subject;
  f.host = text(host);
  if (group.key.size != kNoSize) f.size_bytes = group.key.size;
  f.observed = outlier.value;
  f.expected = outlier.reference;
  const auto probe = options_.catalog->find(f.probe);
  f.unit = probe->second.at(f.metric).unit;
  return f;
}

std::string PeerWording::gap_words(const Outlier& outlier) const {
  if (std::isinf(outlier.relative_gap)) return "far";
  return fmt::format("{:.0f}%", std::fabs(outlier.relative_gap) * 100);
}

const char* PeerWording::side_words(const Group& group) const {
  return group.worse == WorseSide::lower ? "below" : "above";
}

std::string PeerWording::source_words(std::size_t peers, const char* of) const {
  return fmt::format(
      "inferred: median of {} {} (results/robust_stats.hpp: named beyond {:.0f}% and {:.1f} "
      "robust sigmas from it, FAIL beyond {:.0f}%{})",
      peers, of, options_.policy.min_relative_gap * 100, options_.policy.robust_z,
      options_.policy.fail_relative_gap * 100,
      peers == 2 ? "; with two peers the worse is only a WARN" : "");
}

std::string PeerWording::listing(const std::vector<std::pair<std::string, double>>& values) const {
  std::string out;
  std::size_t shown = 0;
  for (const auto& [name, value] : values) {
    if (++shown > 16) {
      out += fmt::format(", ... ({} in all)", values.size());
      break;
    }
    out += (out.empty() ? "" : ", ") + name + " " + format_value(value);
  }
  return out;
}

}  // namespace fabcheck::peers
