// Localisation from a node-pair matrix: which node, or which link between two nodes, is slow, by
// comparison with the matrix's own healthy level (no profile figure), then confirmed by re-pairing
// each suspect with nodes known to be good (pair_schedule.hpp's suspect rounds).
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
  bool any() const { return !nodes.empty() || !links.empty(); }
};

PairSuspects find_suspects(const PairMatrix& matrix, const LocalisationRule& rule);

// The second pass: each suspect node and each end of a suspect link paired with a good node
// (suspect_rounds), and each suspect link measured again; no node twice in a round.
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
};

// `second_pass`: the figures of confirmation_rounds(suspects), judged against the first pass's
// threshold.
Localisation confirm_suspects(const PairSuspects& suspects,
                              const std::vector<PairFigure>& second_pass);

// "HOST_A--HOST_B", the two names sorted: the subject of a link finding.
std::string link_subject(const std::string& a, const std::string& b);

}  // namespace fabcheck
