// The bisection of coll.node_bisect: which groups of nodes to measure at each step and what their
// all-reduce figures name (a slow node, a slow link, a slow path between two halves). Pure: the
// probe runs it live, its judge replays it from the records and reaches the same conclusions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

// What a group measures: the whole world (step 0), a half of a slow group, known-good nodes of the
// same size (the step's reference), a suspect node with a known-good partner, or a slow group
// measured again.
enum class BisectRole { world, half, reference, partner, repeat };
const char* bisect_role_name(BisectRole role);  // "world", "half", "reference", ...
std::optional<BisectRole> bisect_role_from(const std::string& name);

struct BisectGroup {
  std::vector<int> members;  // node indices, ascending
  BisectRole role = BisectRole::half;
  int tested = -1;  // partner: the suspect node it tests; -1 otherwise
};

// One group's figure and how it was read: slow below (1 - gap) x its step's level (the fastest
// group of the step), or when its collective failed (NaN).
struct BisectFigure {
  int step = 0;
  BisectGroup group;
  double busbw = 0;
  double level = 0;  // the step's fastest group
  bool slow = false;
};

// What the figures name. node: slow in every group that held it and with a good partner (a FAIL
// that drains it). link: a group of two slow, each node fine with good partners, slow again when
// measured again (a FAIL on the cable, drains neither). between: a group slow again whose halves
// (or members with good partners) are each fast: the path between `left` and `right` (a switch
// link or cables; WARN, drains none). unsettled: slow groups no good node was left to compare with
// (WARN). cleared: a slow group fast when measured again (noise; no finding).
struct BisectConclusion {
  enum class Kind { node, link, between, unsettled, cleared };
  Kind kind = Kind::node;
  std::vector<int> nodes;  // the node, the link's two, or every node concerned
  std::vector<int> left;   // between: the two sides
  std::vector<int> right;
  std::vector<int> evidence;  // indices into Bisection::figures() the conclusion rests on
};

class Bisection {
 public:
  // `nodes` >= 4; a group is slow below (1 - min_gap) x its step's level, 0 < min_gap < 1: the
  // fastest group of the step, or `expected_busbw` when higher. Without an expected figure (0) a
  // fault in both halves of the world slows both alike and is not seen.
  Bisection(int nodes, double min_gap, double expected_busbw = 0);

  // The groups of the coming step, disjoint; empty once done.
  const std::vector<BisectGroup>& next() const { return planned_; }
  // Takes the figures of next()'s groups in its order (NaN: that group's collective failed) and
  // plans the step after.
  void record(const std::vector<double>& busbw);
  bool done() const { return planned_.empty(); }
  int steps() const { return step_; }  // steps recorded

  const std::vector<BisectFigure>& figures() const { return figures_; }
  const std::vector<BisectConclusion>& conclusions() const { return conclusions_; }
  double min_gap() const { return min_gap_; }

 private:
  enum class Stage { split, partners, repeat };
  struct Suspect {
    std::vector<int> members;
    Stage stage = Stage::split;
    std::vector<int> untested;  // partners: members still to pair with a good node
    bool any_slow_partner = false;
    std::vector<int> evidence;  // figures that made it (and its ancestors) a suspect
    std::vector<int> left;      // the halves measured fast (split) before a repeat
    std::vector<int> right;
    bool open = true;
  };

  void plan();
  void settle_split(int index, const std::vector<int>& child_figures);
  void conclude(BisectConclusion::Kind kind, std::vector<int> nodes, std::vector<int> evidence,
                std::vector<int> left = {}, std::vector<int> right = {});
  void add_suspect(std::vector<int> members, std::vector<int> evidence);

  int nodes_;
  double min_gap_;
  double expected_;
  int step_ = 0;
  double last_level_ = 0;
  std::vector<char> good_;
  std::vector<Suspect> suspects_;
  std::vector<BisectGroup> planned_;
  std::vector<int> planned_for_;  // per planned group: its suspect, -1 for a reference
  std::vector<BisectFigure> figures_;
  std::vector<BisectConclusion> conclusions_;
};

}  // namespace fabcheck
