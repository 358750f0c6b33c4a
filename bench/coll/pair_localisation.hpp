// Localisation from a node-pair matrix: which node, which link between two nodes, or which switch
// link between two groups of nodes (leaf switches) is slow, by comparison with the matrix's own
// healthy level (no profile figure), then confirmed by re-pairing each suspect node with nodes
// known to be good and by measuring each suspect link and switch block again.
#pragma once

#include <string>
#include <vector>

#include "bench/core/pair_schedule.hpp"

namespace fabcheck {

// One figure per pair of nodes (higher is better: bandwidth), symmetric, NaN where not measured.
class PairMatrix {
 public:
  PairMatrix() = default;
  explicit PairMatrix(std::vector<std::string> nodes);
  int size() const { return static_cast<int>(nodes_.size()); }
  const std::vector<std::string>& nodes() const { return nodes_; }
  double at(int a, int b) const;
  void set(int a, int b, double value);  // both (a,b) and (b,a)
  // Row-major n x n values (NaN on the diagonal and where not measured).
  const std::vector<double>& values() const { return values_; }

 private:
  std::vector<std::string> nodes_;
  std::vector<double> values_;
};

struct LocalisationRule {
  // A pair is slow below (1 - min_gap) x the reference. 0.5: the reference never exceeds the
  // fastest pair, so pairs spread +-30 % around their level (more than measured on simulated
  // clusters, docs/testing.md) stay above it: 0.7 >= 0.5 x 1.3. A quiet fabric can afford 0.25
  // (a port at half rate is then well below), set in the profile ([node] pair_min_gap).
  double min_gap = 0.5;
};

// Nodes grouped by the leaf switch they hang off (topology.conf), or as the matrix shows them.
struct NodeGroups {
  std::vector<std::string> names;  // one per group: the switch's name, or "group N"
  std::vector<int> of_node;        // each node's group; -1: in none
  // The switches between two groups, from the first group's leaf up and down to the second's
  // ("l1", "s0", "l2"); empty when not known (inferred groups).
  std::vector<std::vector<std::vector<std::string>>> routes;
  bool inferred = false;
  int count() const { return static_cast<int>(names.size()); }
  int group_of(int node) const;  // -1 when none (or out of range)
  const std::vector<std::string>& route(int a, int b) const;
};

// Groups the matrix shows when no topology is given: the nodes joined by fast pairs (at least
// (1 - min_gap) x the upper median of the nodes' fastest pairs), kept only when there are two or
// more such groups of two or more nodes, every measured pair inside a group is fast and every one
// between two groups slow. Nodes slow with everyone are in no group. Empty when the matrix shows
// no such shape.
NodeGroups infer_groups(const PairMatrix& matrix, const LocalisationRule& rule);

// Rounds to add to `rounds` so that every two groups are joined by at least one pair (the least
// used nodes of each), no node twice in a round; none when they already are.
std::vector<PairRound> rounds_covering_groups(const std::vector<PairRound>& rounds,
                                              const NodeGroups& groups);
// "l0--l1 4 pairs, l0--l2 4 pairs, l1--l2 none": the pairs of `rounds` between every two groups.
std::string describe_group_coverage(const std::vector<PairRound>& rounds, const NodeGroups& groups);

// Two groups whose pairs are slow: a switch link on the route between them.
struct SlowBlock {
  int a = 0;  // group indices, a < b
  int b = 0;
  int measured = 0;  // pairs judged (neither end slow inside its own group)
  int slow = 0;
  double median = 0;            // of the pairs judged
  std::vector<NodePair> again;  // pairs of good nodes to measure again (ends shared by none)
};

// The first pass: what the matrix alone says.
struct PairSuspects {
  // The healthy level: the median over nodes of each node's median pair (the higher middle one
  // for an even count). Robust while fewer than half of the nodes, and fewer than half of any
  // node's partners, are bad.
  double reference = 0;
  double threshold = 0;              // reference x (1 - min_gap)
  std::vector<double> node_median;   // each node's median pair
  std::vector<NodePair> slow_pairs;  // below the threshold
  std::vector<int> nodes;            // slow with most of their partners
  std::vector<NodePair> links;       // slow pairs whose ends are not suspect nodes
  std::vector<int> good;             // neither a suspect node nor an end of a suspect link
  std::string not_possible;          // why the matrix cannot localise ("" when it can)
  NodeGroups groups;                 // as given, else inferred (then groups.inferred)
  std::vector<SlowBlock> blocks;     // slow between two groups; their pairs blame no node or link
  // Groups slow with most (and at least two) of the other groups: the group's own uplink.
  std::vector<int> uplinks;
  bool any() const { return !nodes.empty() || !links.empty() || !blocks.empty(); }
};

// With `groups` (from a topology; nullptr, empty or of one group: inferred from the matrix, so a
// fabric cut in two that a one-switch topology cannot show still stands out), the reference is the
// higher of the nodes' one and the upper median of the blocks' medians (a block: the pairs between
// two groups, or inside one) and a
// block between two groups is slow when more than half of its pairs are and two of its slow pairs
// share no node (so no one node explains it); a node slow with most of its partners inside its
// own group is left out of the blocks it is in.
PairSuspects find_suspects(const PairMatrix& matrix, const LocalisationRule& rule,
                           const NodeGroups* groups = nullptr);

// The second pass: each suspect node and each end of a suspect link paired with a good node
// (suspect_rounds; with slow blocks, a good node on this side of them), each suspect link and each
// slow block's chosen pairs measured again; no node twice in a round.
std::vector<PairRound> confirmation_rounds(const PairSuspects& suspects);

struct PairFigure {
  NodePair pair;
  double value = 0;
};

// What the second pass decided.
struct Localisation {
  std::vector<int> bad_nodes;           // slow again with a good node
  std::vector<NodePair> bad_links;      // slow again, and both ends fine with good nodes
  std::vector<int> cleared_nodes;       // fine with a good node: the first pass was noise
  std::vector<NodePair> cleared_links;  // fine when measured again
  std::vector<int> unconfirmed_nodes;   // no good node to re-pair with
  std::vector<NodePair> unconfirmed_links;
  // Indices into suspects.blocks: slow again (most of the pairs measured again), fine again, or
  // not measured again.
  std::vector<int> bad_blocks;
  std::vector<int> cleared_blocks;
  std::vector<int> unconfirmed_blocks;
};

// `second_pass`: the figures of confirmation_rounds(suspects), judged against the first pass's
// threshold.
Localisation confirm_suspects(const PairSuspects& suspects,
                              const std::vector<PairFigure>& second_pass);

// The figure the second pass measured for `pair` (either order); NaN when it did not.
double second_value(const std::vector<PairFigure>& second_pass, NodePair pair);

// "HOST_A--HOST_B", the two names sorted: the subject of a link finding.
std::string link_subject(const std::string& a, const std::string& b);

}  // namespace fabcheck
