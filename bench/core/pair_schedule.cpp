// Node-pair scheduling for inter-node tests: circle method, quick mode, suspect re-pairing.
#include "bench/core/pair_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace fabcheck {

std::vector<PairRound> circle_rounds(int nodes) {
  std::vector<PairRound> rounds;
  if (nodes < 2) return rounds;
  int slots = nodes % 2 == 0 ? nodes : nodes + 1;  // slot `nodes` is the dummy when odd
  // Slot 0 stays fixed; the others rotate one place each round.
  std::vector<int> ring(static_cast<std::size_t>(slots - 1));
  for (int i = 0; i < slots - 1; ++i) ring[static_cast<std::size_t>(i)] = i + 1;
  for (int round = 0; round < slots - 1; ++round) {
    PairRound pairs;
    std::vector<int> order{0};
    order.insert(order.end(), ring.begin(), ring.end());
    for (int i = 0; i < slots / 2; ++i) {
      int a = order[static_cast<std::size_t>(i)];
      int b = order[static_cast<std::size_t>(slots - 1 - i)];
      if (a >= nodes || b >= nodes) continue;  // paired with the dummy: rests this round
      pairs.push_back({std::min(a, b), std::max(a, b)});
    }
    rounds.push_back(std::move(pairs));
    std::rotate(ring.rbegin(), ring.rbegin() + 1, ring.rend());
  }
  return rounds;
}

std::vector<PairRound> quick_rounds(int nodes) {
  std::vector<PairRound> rounds;
  if (nodes < 2) return rounds;
  PairRound first;
  for (int a = 0; a + 1 < nodes; a += 2) first.push_back({a, a + 1});
  rounds.push_back(std::move(first));
  if (nodes % 2 == 1) rounds.push_back({{0, nodes - 1}});
  return rounds;
}

std::vector<PairRound> neighbour_rounds(int nodes, int shuffles) {
  std::vector<PairRound> rounds;
  if (nodes < 2) return rounds;
  std::set<std::pair<int, int>> seen;
  // Pairs of one pass go into the first round (of those this pass opened) without either node.
  auto add_pass = [&](const std::vector<NodePair>& pairs) {
    const std::size_t first = rounds.size();
    for (const auto& candidate : pairs) {
      const NodePair pair{std::min(candidate.a, candidate.b), std::max(candidate.a, candidate.b)};
      if (pair.a == pair.b || !seen.insert({pair.a, pair.b}).second) continue;
      std::size_t r = first;
      for (; r < rounds.size(); ++r) {
        const bool busy = std::any_of(rounds[r].begin(), rounds[r].end(), [&](const NodePair& p) {
          return p.a == pair.a || p.b == pair.a || p.a == pair.b || p.b == pair.b;
        });
        if (!busy) break;
      }
      if (r == rounds.size()) rounds.emplace_back();
      rounds[r].push_back(pair);
    }
  };
  std::vector<NodePair> ring;
  for (int a = 0; a < nodes; ++a) ring.push_back({a, (a + 1) % nodes});
  // Even edges first, then odd ones: two rounds for an even ring.
  std::stable_partition(ring.begin(), ring.end(), [](const NodePair& p) { return p.a % 2 == 0; });
  add_pass(ring);
  std::mt19937 random(0x5eed0000u + static_cast<unsigned>(nodes));
  std::vector<int> order(static_cast<std::size_t>(nodes));
  for (int shuffle = 0; shuffle < shuffles; ++shuffle) {
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    std::vector<NodePair> pairs;
    for (std::size_t i = 0; i + 1 < order.size(); i += 2) pairs.push_back({order[i], order[i + 1]});
    add_pass(pairs);
  }
  return rounds;
}

std::vector<PairRound> suspect_rounds(const std::vector<int>& suspects,
                                      const std::vector<int>& passed) {
  std::vector<PairRound> rounds;
  if (passed.empty()) return rounds;
  for (std::size_t start = 0; start < suspects.size(); start += passed.size()) {
    PairRound round;
    for (std::size_t j = 0; j < passed.size() && start + j < suspects.size(); ++j) {
      round.push_back({suspects[start + j], passed[j]});
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<int> suspects_of(const std::vector<PairResult>& results) {
  std::set<int> suspects;
  for (const auto& result : results) {
    if (!result.passed) {
      suspects.insert(result.pair.a);
      suspects.insert(result.pair.b);
    }
  }
  return {suspects.begin(), suspects.end()};
}

std::vector<int> passed_nodes(const std::vector<PairResult>& results) {
  std::set<int> suspects;
  std::set<int> passed;
  for (const auto& result : results) {
    if (!result.passed) {
      suspects.insert(result.pair.a);
      suspects.insert(result.pair.b);
    } else {
      passed.insert(result.pair.a);
      passed.insert(result.pair.b);
    }
  }
  std::vector<int> out;
  std::set_difference(passed.begin(), passed.end(), suspects.begin(), suspects.end(),
                      std::back_inserter(out));
  return out;
}

NodeBlame blame_nodes(const std::vector<int>& suspects, const std::vector<int>& passed,
                      const std::vector<PairResult>& second_pass) {
  std::set<int> good(passed.begin(), passed.end());
  NodeBlame blame;
  for (int suspect : suspects) {
    bool tested = false;
    bool failed = false;
    for (const auto& result : second_pass) {
      int partner = result.pair.a == suspect   ? result.pair.b
                    : result.pair.b == suspect ? result.pair.a
                                               : -1;
      if (partner < 0 || good.count(partner) == 0) continue;
      tested = true;
      failed = failed || !result.passed;
    }
    (tested ? (failed ? blame.bad : blame.cleared) : blame.unresolved).push_back(suspect);
  }
  return blame;
}

}  // namespace fabcheck
