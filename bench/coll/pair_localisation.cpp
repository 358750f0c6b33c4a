// Localisation from a node-pair matrix: suspects from the matrix's own level, confirmation by
// re-pairing with good nodes.
#include "bench/coll/pair_localisation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "results/robust_stats.hpp"

namespace fabcheck {

namespace {

constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

bool has(const std::vector<int>& nodes, int node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

// The middle value, the higher of the two middle ones for an even count: faults only lower a pair's
// figure, so a node with two partners, one of them bad, keeps its healthy level. NaN when empty.
double upper_median(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return kNotMeasured;
  const auto middle = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

NodePair ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

// Adds `pair` to the first round where neither node appears yet, or to a new round.
void place(std::vector<PairRound>& rounds, NodePair pair) {
  for (auto& round : rounds) {
    const bool busy = std::any_of(round.begin(), round.end(), [&](const NodePair& p) {
      return p.a == pair.a || p.b == pair.a || p.a == pair.b || p.b == pair.b;
    });
    if (!busy) {
      round.push_back(pair);
      return;
    }
  }
  rounds.push_back({pair});
}

// Suspect nodes and the ends of suspect links, sorted, distinct: each is re-paired with a good
// node.
std::vector<int> nodes_to_repair(const PairSuspects& suspects) {
  std::set<int> nodes(suspects.nodes.begin(), suspects.nodes.end());
  for (const auto& link : suspects.links) {
    nodes.insert(link.a);
    nodes.insert(link.b);
  }
  return {nodes.begin(), nodes.end()};
}

}  // namespace

PairMatrix::PairMatrix(std::vector<std::string> nodes)
    : nodes_(std::move(nodes)), values_(nodes_.size() * nodes_.size(), kNotMeasured) {}

double PairMatrix::at(int a, int b) const {
  return values_[static_cast<std::size_t>(a) * nodes_.size() + static_cast<std::size_t>(b)];
}

void PairMatrix::set(int a, int b, double value) {
  values_[static_cast<std::size_t>(a) * nodes_.size() + static_cast<std::size_t>(b)] = value;
  values_[static_cast<std::size_t>(b) * nodes_.size() + static_cast<std::size_t>(a)] = value;
}

PairSuspects find_suspects(const PairMatrix& matrix, const LocalisationRule& rule) {
  PairSuspects result;
  const int n = matrix.size();
  if (n < 3) {
    result.not_possible =
        std::to_string(n) + " node(s): telling a slow node from a slow link needs at least 3 nodes";
    for (int node = 0; node < n; ++node) result.good.push_back(node);
    return result;
  }
  result.node_median.assign(static_cast<std::size_t>(n), kNotMeasured);
  for (int a = 0; a < n; ++a) {
    std::vector<double> row;
    for (int b = 0; b < n; ++b) {
      if (a != b) row.push_back(matrix.at(a, b));
    }
    result.node_median[static_cast<std::size_t>(a)] = upper_median(std::move(row));
  }
  result.reference = median_of(result.node_median);
  if (std::isnan(result.reference) || result.reference <= 0) {
    result.not_possible = "no pair of nodes was measured";
    return result;
  }
  result.threshold = result.reference * (1 - rule.min_gap);

  std::vector<int> slow(static_cast<std::size_t>(n), 0);
  std::vector<int> measured(static_cast<std::size_t>(n), 0);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double value = matrix.at(a, b);
      if (std::isnan(value)) continue;
      ++measured[static_cast<std::size_t>(a)];
      ++measured[static_cast<std::size_t>(b)];
      if (value >= result.threshold) continue;
      result.slow_pairs.push_back({a, b});
      ++slow[static_cast<std::size_t>(a)];
      ++slow[static_cast<std::size_t>(b)];
    }
  }
  // A node slow with most of its partners is the suspect; a slow pair between two other nodes is a
  // link suspect.
  for (int node = 0; node < n; ++node) {
    const auto i = static_cast<std::size_t>(node);
    if (measured[i] > 0 && 2 * slow[i] > measured[i]) result.nodes.push_back(node);
  }
  for (const auto& pair : result.slow_pairs) {
    if (!has(result.nodes, pair.a) && !has(result.nodes, pair.b)) result.links.push_back(pair);
  }
  for (int node = 0; node < n; ++node) {
    const bool at_link = std::any_of(result.links.begin(), result.links.end(),
                                     [&](const NodePair& p) { return p.a == node || p.b == node; });
    if (!has(result.nodes, node) && !at_link && measured[static_cast<std::size_t>(node)] > 0) {
      result.good.push_back(node);
    }
  }
  return result;
}

std::vector<PairRound> confirmation_rounds(const PairSuspects& suspects) {
  std::vector<PairRound> rounds;
  for (const auto& round : suspect_rounds(nodes_to_repair(suspects), suspects.good)) {
    for (const auto& pair : round) place(rounds, ordered(pair.a, pair.b));
  }
  for (const auto& link : suspects.links) place(rounds, link);
  return rounds;
}

Localisation confirm_suspects(const PairSuspects& suspects,
                              const std::vector<PairFigure>& second_pass) {
  std::vector<PairResult> results;
  for (const auto& figure : second_pass) {
    results.push_back({ordered(figure.pair.a, figure.pair.b),
                       !std::isnan(figure.value) && figure.value >= suspects.threshold});
  }
  const std::vector<int> repaired = nodes_to_repair(suspects);
  const NodeBlame blame = blame_nodes(repaired, suspects.good, results);

  Localisation out;
  out.bad_nodes = blame.bad;  // suspect nodes, and link ends found slow with a good node
  for (int node : suspects.nodes) {
    if (has(blame.cleared, node)) out.cleared_nodes.push_back(node);
    if (has(blame.unresolved, node)) out.unconfirmed_nodes.push_back(node);
  }
  for (const auto& link : suspects.links) {
    if (has(out.bad_nodes, link.a) || has(out.bad_nodes, link.b)) continue;  // a node explains it
    const auto again = std::find_if(results.begin(), results.end(),
                                    [&](const PairResult& r) { return r.pair == link; });
    if (again == results.end()) {
      out.unconfirmed_links.push_back(link);
    } else if (again->passed) {
      out.cleared_links.push_back(link);
    } else if (suspects.good.empty()) {
      out.unconfirmed_links.push_back(link);  // slow again, but no good node to clear its ends
    } else {
      out.bad_links.push_back(link);
    }
  }
  // A suspect node that was fine with a good partner: its slow pairs were its links' doing, unless
  // the other end is bad. They were not measured again: unconfirmed.
  for (int node : out.cleared_nodes) {
    for (const auto& pair : suspects.slow_pairs) {
      if (pair.a != node && pair.b != node) continue;
      const int other = pair.a == node ? pair.b : pair.a;
      if (has(out.bad_nodes, other)) continue;
      out.unconfirmed_links.push_back(pair);
    }
  }
  return out;
}

std::string link_subject(const std::string& a, const std::string& b) {
  return a < b ? a + "--" + b : b + "--" + a;
}

}  // namespace fabcheck
