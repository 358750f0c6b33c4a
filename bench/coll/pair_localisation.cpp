// Localisation from a node-pair matrix: suspects from the matrix's own level (by node, by pair, by
// block between two groups), confirmation by re-pairing with good nodes and measuring again.
#include "bench/coll/pair_localisation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
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

bool touches(const NodePair& pair, int node) { return pair.a == node || pair.b == node; }

// The first pass's blocks: the pairs between group g and group h (g < h) that are judged, those of
// them that are slow, and every slow pair between the two (those of nodes slow at home too).
struct BlockPairs {
  std::vector<NodePair> pairs;
  std::vector<NodePair> slow;
  std::vector<NodePair> all_slow;
};

// Two slow pairs that share no node, for measuring the block again; empty when there are none.
std::vector<NodePair> disjoint_pair_of(const std::vector<NodePair>& slow,
                                       const std::vector<int>& avoid) {
  for (std::size_t i = 0; i < slow.size(); ++i) {
    if (has(avoid, slow[i].a) || has(avoid, slow[i].b)) continue;
    for (std::size_t j = i + 1; j < slow.size(); ++j) {
      if (has(avoid, slow[j].a) || has(avoid, slow[j].b)) continue;
      if (!touches(slow[j], slow[i].a) && !touches(slow[j], slow[i].b)) return {slow[i], slow[j]};
    }
  }
  return {};
}

// Whether the pair (a, b) runs between two groups whose block is slow.
bool across_slow_block(const PairSuspects& suspects, int a, int b) {
  const int ga = suspects.groups.group_of(a);
  const int gb = suspects.groups.group_of(b);
  if (ga < 0 || gb < 0 || ga == gb) return false;
  return std::any_of(suspects.blocks.begin(), suspects.blocks.end(), [&](const SlowBlock& block) {
    return block.a == std::min(ga, gb) && block.b == std::max(ga, gb);
  });
}

// The groups a node belongs to, as a union-find over fast pairs.
int root_of(std::vector<int>& parent, int node) {
  while (parent[static_cast<std::size_t>(node)] != node) {
    parent[static_cast<std::size_t>(node)] =
        parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(node)])];
    node = parent[static_cast<std::size_t>(node)];
  }
  return node;
}

}  // namespace

int NodeGroups::group_of(int node) const {
  return node >= 0 && node < static_cast<int>(of_node.size())
             ? of_node[static_cast<std::size_t>(node)]
             : -1;
}

const std::vector<std::string>& NodeGroups::route(int a, int b) const {
  static const std::vector<std::string> none;
  if (a < 0 || b < 0 || a >= static_cast<int>(routes.size()) ||
      b >= static_cast<int>(routes[static_cast<std::size_t>(a)].size()))
    return none;
  return routes[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
}

NodeGroups infer_groups(const PairMatrix& matrix, const LocalisationRule& rule) {
  const int n = matrix.size();
  NodeGroups none;
  if (n < 4) return none;
  std::vector<double> fastest(static_cast<std::size_t>(n), kNotMeasured);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      const double value = a == b ? kNotMeasured : matrix.at(a, b);
      auto& best = fastest[static_cast<std::size_t>(a)];
      if (!std::isnan(value) && (std::isnan(best) || value > best)) best = value;
    }
  }
  const double level = upper_median(fastest);
  if (std::isnan(level) || level <= 0) return none;
  const double threshold = level * (1 - rule.min_gap);
  std::vector<int> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double value = matrix.at(a, b);
      if (!std::isnan(value) && value >= threshold)
        parent[static_cast<std::size_t>(root_of(parent, a))] = root_of(parent, b);
    }
  }
  std::map<int, std::vector<int>> members;
  for (int node = 0; node < n; ++node) members[root_of(parent, node)].push_back(node);
  NodeGroups groups;
  groups.inferred = true;
  groups.of_node.assign(static_cast<std::size_t>(n), -1);
  for (const auto& [root, nodes] : members) {
    if (nodes.size() < 2) continue;
    for (int node : nodes) groups.of_node[static_cast<std::size_t>(node)] = groups.count();
    groups.names.push_back("group " + std::to_string(groups.count() + 1));
  }
  if (groups.count() < 2) return none;
  // Every pair inside a group fast, every pair between two groups slow: else not this shape.
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double value = matrix.at(a, b);
      const int ga = groups.group_of(a);
      const int gb = groups.group_of(b);
      if (std::isnan(value) || ga < 0 || gb < 0) continue;
      if ((ga == gb) != (value >= threshold)) return none;
    }
  }
  return groups;
}

std::vector<PairRound> rounds_covering_groups(const std::vector<PairRound>& rounds,
                                              const NodeGroups& groups) {
  const int count = groups.count();
  std::set<std::pair<int, int>> covered;
  std::map<int, int> used;
  for (const auto& round : rounds) {
    for (const auto& pair : round) {
      ++used[pair.a];
      ++used[pair.b];
      const int ga = groups.group_of(pair.a);
      const int gb = groups.group_of(pair.b);
      if (ga >= 0 && gb >= 0) covered.insert({std::min(ga, gb), std::max(ga, gb)});
    }
  }
  auto least_used = [&](int g) {
    int best = -1;
    for (int node = 0; node < static_cast<int>(groups.of_node.size()); ++node) {
      if (groups.group_of(node) == g && (best < 0 || used[node] < used[best])) best = node;
    }
    return best;
  };
  std::vector<PairRound> extra;
  for (int g = 0; g < count; ++g) {
    for (int h = g + 1; h < count; ++h) {
      if (covered.count({g, h})) continue;
      const int a = least_used(g);
      const int b = least_used(h);
      if (a < 0 || b < 0) continue;
      ++used[a];
      ++used[b];
      place(extra, ordered(a, b));
    }
  }
  return extra;
}

std::string describe_group_coverage(const std::vector<PairRound>& rounds,
                                    const NodeGroups& groups) {
  std::map<std::pair<int, int>, int> pairs;
  for (const auto& round : rounds) {
    for (const auto& pair : round) {
      const int ga = groups.group_of(pair.a);
      const int gb = groups.group_of(pair.b);
      if (ga >= 0 && gb >= 0 && ga != gb) ++pairs[{std::min(ga, gb), std::max(ga, gb)}];
    }
  }
  std::string text;
  for (int g = 0; g < groups.count(); ++g) {
    for (int h = g + 1; h < groups.count(); ++h) {
      const int count = pairs.count({g, h}) ? pairs[{g, h}] : 0;
      text += (text.empty() ? "" : ", ") + groups.names[static_cast<std::size_t>(g)] + "--" +
              groups.names[static_cast<std::size_t>(h)] + " " +
              (count == 0 ? std::string("none") : std::to_string(count) + " pair(s)");
    }
  }
  return text.empty() ? "none (one leaf)" : text;
}

PairMatrix::PairMatrix(std::vector<std::string> nodes)
    : nodes_(std::move(nodes)), values_(nodes_.size() * nodes_.size(), kNotMeasured) {}

double PairMatrix::at(int a, int b) const {
  return values_[static_cast<std::size_t>(a) * nodes_.size() + static_cast<std::size_t>(b)];
}

void PairMatrix::set(int a, int b, double value) {
  values_[static_cast<std::size_t>(a) * nodes_.size() + static_cast<std::size_t>(b)] = value;
  values_[static_cast<std::size_t>(b) * nodes_.size() + static_cast<std::size_t>(a)] = value;
}

PairSuspects find_suspects(const PairMatrix& matrix, const LocalisationRule& rule,
                           const NodeGroups* groups) {
  PairSuspects result;
  const int n = matrix.size();
  if (n < 3) {
    result.not_possible =
        std::to_string(n) + " node(s): telling a slow node from a slow link needs at least 3 nodes";
    for (int node = 0; node < n; ++node) result.good.push_back(node);
    return result;
  }
  result.groups = groups != nullptr && groups->count() >= 2 ? *groups : infer_groups(matrix, rule);
  const NodeGroups& grouping = result.groups;
  const int group_count = grouping.count();
  result.node_median.assign(static_cast<std::size_t>(n), kNotMeasured);
  for (int a = 0; a < n; ++a) {
    std::vector<double> row;
    for (int b = 0; b < n; ++b) {
      if (a != b) row.push_back(matrix.at(a, b));
    }
    result.node_median[static_cast<std::size_t>(a)] = upper_median(std::move(row));
  }
  result.reference = median_of(result.node_median);
  if (group_count >= 2) {
    // Per block (two groups, or one): its pairs' upper median; the reference is theirs.
    std::map<std::pair<int, int>, std::vector<double>> block_values;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        const int ga = grouping.group_of(a);
        const int gb = grouping.group_of(b);
        if (ga < 0 || gb < 0 || std::isnan(matrix.at(a, b))) continue;
        block_values[{std::min(ga, gb), std::max(ga, gb)}].push_back(matrix.at(a, b));
      }
    }
    std::vector<double> medians;
    for (auto& [block, values] : block_values) medians.push_back(upper_median(values));
    // The higher of the two: a slow trunk lowers most nodes' median pair, slow nodes in every
    // leaf most blocks' median; faults only lower figures.
    if (!medians.empty()) {
      const double by_blocks = upper_median(medians);
      if (std::isnan(result.reference) || by_blocks > result.reference)
        result.reference = by_blocks;
    }
  }
  if (std::isnan(result.reference) || result.reference <= 0) {
    result.not_possible = "no pair of nodes was measured";
    return result;
  }
  result.threshold = result.reference * (1 - rule.min_gap);
  auto is_slow = [&](int a, int b) {
    const double value = matrix.at(a, b);
    return !std::isnan(value) && value < result.threshold;
  };

  // A node slow with most of its partners inside its own group explains its blocks' slow pairs.
  std::vector<int> slow_at_home;
  std::vector<std::vector<NodePair>> block_slow_pairs;  // each of result.blocks: all_slow
  if (group_count >= 2) {
    for (int node = 0; node < n; ++node) {
      int measured = 0;
      int slow = 0;
      for (int other = 0; other < n; ++other) {
        if (other == node || grouping.group_of(other) != grouping.group_of(node) ||
            grouping.group_of(node) < 0 || std::isnan(matrix.at(node, other)))
          continue;
        ++measured;
        slow += is_slow(node, other) ? 1 : 0;
      }
      if (measured > 0 && 2 * slow > measured) slow_at_home.push_back(node);
    }
    std::map<std::pair<int, int>, BlockPairs> blocks;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        const int ga = grouping.group_of(a);
        const int gb = grouping.group_of(b);
        if (ga < 0 || gb < 0 || ga == gb || std::isnan(matrix.at(a, b))) continue;
        BlockPairs& block = blocks[{std::min(ga, gb), std::max(ga, gb)}];
        if (is_slow(a, b)) block.all_slow.push_back({a, b});
        if (has(slow_at_home, a) || has(slow_at_home, b)) continue;
        block.pairs.push_back({a, b});
        if (is_slow(a, b)) block.slow.push_back({a, b});
      }
    }
    for (const auto& [key, block] : blocks) {
      const auto measured = static_cast<int>(block.pairs.size());
      const auto slow = static_cast<int>(block.slow.size());
      if (2 * slow <= measured) continue;
      const auto again = disjoint_pair_of(block.slow, {});
      if (again.empty()) continue;  // one node would explain it
      std::vector<double> values;
      for (const auto& pair : block.pairs) values.push_back(matrix.at(pair.a, pair.b));
      result.blocks.push_back({key.first, key.second, measured, slow, median_of(values), again});
      block_slow_pairs.push_back(block.all_slow);
    }
    // A group slow with most of the others (two at least): its own uplink.
    for (int g = 0; g < group_count; ++g) {
      int slow = 0;
      int judged = 0;
      for (const auto& [key, block] : blocks) {
        if ((key.first != g && key.second != g) || block.pairs.empty()) continue;
        ++judged;
        slow +=
            std::any_of(result.blocks.begin(), result.blocks.end(),
                        [&](const SlowBlock& s) { return s.a == key.first && s.b == key.second; })
                ? 1
                : 0;
      }
      if (slow >= 2 && 2 * slow > judged) result.uplinks.push_back(g);
    }
  }

  std::vector<int> slow(static_cast<std::size_t>(n), 0);
  std::vector<int> measured(static_cast<std::size_t>(n), 0);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double value = matrix.at(a, b);
      if (std::isnan(value)) continue;
      if (across_slow_block(result, a, b)) continue;  // the switch link's, not the nodes'
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
                                     [&](const NodePair& p) { return touches(p, node); });
    const bool in_block =
        std::any_of(result.blocks.begin(), result.blocks.end(), [&](const SlowBlock& block) {
          return grouping.group_of(node) == block.a || grouping.group_of(node) == block.b;
        });
    if (!has(result.nodes, node) && !at_link &&
        (measured[static_cast<std::size_t>(node)] > 0 || in_block)) {
      result.good.push_back(node);
    }
  }
  // A block's pairs to measure again are of good nodes.
  std::vector<int> not_good;
  for (int node = 0; node < n; ++node) {
    if (!has(result.good, node)) not_good.push_back(node);
  }
  for (std::size_t i = 0; i < result.blocks.size(); ++i)
    result.blocks[i].again = disjoint_pair_of(block_slow_pairs[i], not_good);
  return result;
}

std::vector<PairRound> confirmation_rounds(const PairSuspects& suspects) {
  std::vector<PairRound> rounds;
  if (suspects.blocks.empty()) {
    for (const auto& round : suspect_rounds(nodes_to_repair(suspects), suspects.good)) {
      for (const auto& pair : round) place(rounds, ordered(pair.a, pair.b));
    }
  } else {
    // Each node to re-pair with the good node on this side of every slow block used least so far.
    std::map<int, int> used;
    for (int node : nodes_to_repair(suspects)) {
      int partner = -1;
      for (int good : suspects.good) {
        if (good == node || across_slow_block(suspects, node, good)) continue;
        if (partner < 0 || used[good] < used[partner]) partner = good;
      }
      if (partner < 0) continue;
      ++used[partner];
      place(rounds, ordered(node, partner));
    }
  }
  for (const auto& link : suspects.links) place(rounds, link);
  for (const auto& block : suspects.blocks) {
    for (const auto& pair : block.again) place(rounds, ordered(pair.a, pair.b));
  }
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
  for (std::size_t i = 0; i < suspects.blocks.size(); ++i) {
    const SlowBlock& block = suspects.blocks[i];
    int again = 0;
    int slow = 0;
    for (const auto& pair : block.again) {
      const double value = second_value(second_pass, pair);
      if (std::isnan(value)) continue;
      ++again;
      slow += value < suspects.threshold ? 1 : 0;
    }
    const int index = static_cast<int>(i);
    if (again == 0) {
      out.unconfirmed_blocks.push_back(index);
    } else if (2 * slow > again) {
      out.bad_blocks.push_back(index);
    } else {
      out.cleared_blocks.push_back(index);
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

double second_value(const std::vector<PairFigure>& second_pass, NodePair pair) {
  for (const auto& figure : second_pass) {
    if (ordered(figure.pair.a, figure.pair.b) == ordered(pair.a, pair.b)) return figure.value;
  }
  return kNotMeasured;
}

std::string link_subject(const std::string& a, const std::string& b) {
  return a < b ? a + "--" + b : b + "--" + a;
}

}  // namespace fabcheck
