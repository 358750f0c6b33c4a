// Node-pair scheduling for inter-node tests: all pairs in disjoint rounds (circle method), a quick
// mode, and re-pairing suspects with nodes that passed so a failure names a node, not a pair.
#pragma once

#include <vector>

namespace fabcheck {

struct NodePair {
  int a = 0;
  int b = 0;
  bool operator==(const NodePair&) const = default;
};
using PairRound = std::vector<NodePair>;

// Circle method: every one of the n(n-1)/2 pairs exactly once, in rounds where no node appears
// twice. Even n: n-1 rounds of n/2 pairs. Odd n: a dummy makes it n rounds of (n-1)/2 pairs, one
// node resting each round. n < 2: no rounds.
std::vector<PairRound> circle_rounds(int nodes);

// Quick mode: every node in one pair: (0,1), (2,3), ... in one round; with odd n the last node is
// paired with node 0 in a second round. n < 2: no rounds.
std::vector<PairRound> quick_rounds(int nodes);

// `--pairs quick` for many nodes: the ring of neighbours (i, i+1 mod n) in 2 rounds (3 when n is
// odd), then `shuffles` rounds of random pairings (a fixed seed: the same schedule every run) that
// avoid pairs already measured where they can. Every node meets 2 + `shuffles` partners at most
// (fewer when n is small), so a slow node is slow with most of them and a slow link stands alone.
// n < 2: no rounds; n <= 3: every pair (the ring is all of them).
std::vector<PairRound> neighbour_rounds(int nodes, int shuffles = 2);

// Second pass: each suspect paired with a node that passed, in rounds where no node appears twice
// (several rounds when there are more suspects than passed nodes). Empty when none passed.
std::vector<PairRound> suspect_rounds(const std::vector<int>& suspects,
                                      const std::vector<int>& passed);

struct PairResult {
  NodePair pair;
  bool passed = false;
};

// Nodes in at least one failed pair (sorted, distinct).
std::vector<int> suspects_of(const std::vector<PairResult>& results);
// Nodes in no failed pair and at least one passed pair (sorted, distinct).
std::vector<int> passed_nodes(const std::vector<PairResult>& results);

struct NodeBlame {
  std::vector<int> bad;         // failed again with a node that had passed: the node is at fault
  std::vector<int> cleared;     // passed with a good partner: its first failure was its partner's
  std::vector<int> unresolved;  // suspects the second pass did not test
};

// Judges the suspects of a first pass by the results of their second-pass pairs.
NodeBlame blame_nodes(const std::vector<int>& suspects, const std::vector<int>& passed,
                      const std::vector<PairResult>& second_pass);

}  // namespace fabcheck
