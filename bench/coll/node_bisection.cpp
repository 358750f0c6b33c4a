// The bisection of coll.node_bisect (see node_bisection.hpp).
#include "bench/coll/node_bisection.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fabcheck {

namespace {

constexpr const char* kRoleNames[] = {"world", "half", "reference", "partner", "repeat"};

}  // namespace

const char* bisect_role_name(BisectRole role) { return kRoleNames[static_cast<int>(role)]; }

std::optional<BisectRole> bisect_role_from(const std::string& name) {
  for (int i = 0; i < 5; ++i) {
    if (name == kRoleNames[i]) return static_cast<BisectRole>(i);
  }
  return std::nullopt;
}

Bisection::Bisection(int nodes, double min_gap, double expected_busbw)
    : nodes_(nodes),
      min_gap_(min_gap),
      expected_(expected_busbw),
      good_(static_cast<std::size_t>(std::max(nodes, 0)), 0) {
  if (nodes < 4) throw std::invalid_argument("a bisection needs 4 nodes or more");
  if (!(min_gap > 0 && min_gap < 1)) throw std::invalid_argument("min_gap must be in (0, 1)");
  if (!(expected_busbw >= 0) || !std::isfinite(expected_busbw))
    throw std::invalid_argument("expected_busbw must be a finite figure, 0 or above");
  Suspect world;
  for (int node = 0; node < nodes; ++node) world.members.push_back(node);
  suspects_.push_back(world);
  // Step 0: the whole world, judged at step 1 against its halves.
  planned_.push_back({world.members, BisectRole::world, -1});
  planned_for_.push_back(0);
}

void Bisection::conclude(BisectConclusion::Kind kind, std::vector<int> nodes,
                         std::vector<int> evidence, std::vector<int> left, std::vector<int> right) {
  conclusions_.push_back(
      {kind, std::move(nodes), std::move(left), std::move(right), std::move(evidence)});
}

void Bisection::add_suspect(std::vector<int> members, std::vector<int> evidence) {
  Suspect suspect;
  suspect.stage = members.size() >= 4 ? Stage::split : Stage::partners;
  suspect.untested = members;
  suspect.members = std::move(members);
  suspect.evidence = std::move(evidence);
  suspects_.push_back(std::move(suspect));
}

void Bisection::settle_split(int index, const std::vector<int>& child_figures) {
  // Copies: add_suspect below may move suspects_.
  const std::vector<int> parent_evidence = suspects_[static_cast<std::size_t>(index)].evidence;
  bool child_slow = false;
  std::vector<std::vector<int>> halves;
  for (const int f : child_figures) {
    const BisectFigure& figure = figures_[static_cast<std::size_t>(f)];
    halves.push_back(figure.group.members);
    if (figure.slow) {
      child_slow = true;
      std::vector<int> evidence = parent_evidence;
      evidence.push_back(f);
      add_suspect(figure.group.members, std::move(evidence));
    } else {
      for (const int node : figure.group.members) good_[static_cast<std::size_t>(node)] = 1;
    }
  }
  Suspect& parent = suspects_[static_cast<std::size_t>(index)];
  // The world is a suspect only when its own figure was slow; every other suspect was.
  const bool parent_slow = index != 0 || figures_.front().slow;
  if (child_slow || !parent_slow || halves.size() != 2) {
    parent.open = false;
    return;
  }
  // Slow as a whole, fast in halves: measure it again before naming the path between them.
  parent.stage = Stage::repeat;
  parent.left = halves[0];
  parent.right = halves[1];
}

void Bisection::record(const std::vector<double>& busbw) {
  if (busbw.size() != planned_.size())
    throw std::invalid_argument("a bisection step needs one figure per planned group");
  double level = 0;
  bool has_reference = false;
  for (std::size_t g = 0; g < planned_.size(); ++g) {
    if (std::isfinite(busbw[g])) level = std::max(level, busbw[g]);
    has_reference = has_reference || planned_[g].role == BisectRole::reference;
  }
  // Step 1 reads the world's figure beside its halves; a later step without known-good nodes of
  // its own keeps the level reached so far.
  if (step_ == 1) level = std::max(level, figures_.front().busbw);
  if (step_ >= 2 && !has_reference) level = std::max(level, last_level_);
  level = std::max(level, expected_);
  last_level_ = level;
  const double slow_below = (1 - min_gap_) * level;
  const auto is_slow = [&](double value) { return !std::isfinite(value) || value < slow_below; };

  const std::size_t first = figures_.size();
  for (std::size_t g = 0; g < planned_.size(); ++g) {
    figures_.push_back(
        {step_, planned_[g], busbw[g], level, step_ == 0 ? false : is_slow(busbw[g])});
  }
  if (step_ == 1) {
    BisectFigure& world = figures_.front();
    world.level = level;
    world.slow = is_slow(world.busbw);
    if (world.slow) suspects_.front().evidence.push_back(0);
  }

  // Each suspect that had groups in this step, in order.
  const std::size_t suspects_before = suspects_.size();
  for (std::size_t s = 0; s < suspects_before; ++s) {
    std::vector<int> mine;
    for (std::size_t g = 0; g < planned_.size(); ++g) {
      if (planned_for_[g] == static_cast<int>(s)) mine.push_back(static_cast<int>(first + g));
    }
    if (mine.empty() || step_ == 0) continue;
    const Stage stage = suspects_[s].stage;
    if (stage == Stage::split) {
      settle_split(static_cast<int>(s), mine);
      continue;
    }
    Suspect& suspect = suspects_[s];
    if (stage == Stage::repeat) {
      const BisectFigure& again = figures_[static_cast<std::size_t>(mine.front())];
      std::vector<int> evidence = suspect.evidence;
      evidence.push_back(mine.front());
      suspect.open = false;
      if (!again.slow) {
        conclude(BisectConclusion::Kind::cleared, suspect.members, std::move(evidence));
      } else if (suspect.members.size() == 2) {
        conclude(BisectConclusion::Kind::link, suspect.members, std::move(evidence));
      } else {
        conclude(BisectConclusion::Kind::between, suspect.members, std::move(evidence),
                 suspect.left, suspect.right);
      }
      continue;
    }
    // Partners: each tested node is named when slow with a known-good partner.
    for (const int f : mine) {
      const BisectFigure& figure = figures_[static_cast<std::size_t>(f)];
      const int tested = figure.group.tested;
      suspect.untested.erase(std::remove(suspect.untested.begin(), suspect.untested.end(), tested),
                             suspect.untested.end());
      if (figure.slow) {
        suspect.any_slow_partner = true;
        std::vector<int> evidence = suspect.evidence;
        evidence.push_back(f);
        conclude(BisectConclusion::Kind::node, {tested}, std::move(evidence));
      } else {
        good_[static_cast<std::size_t>(tested)] = 1;
      }
    }
    if (!suspect.untested.empty()) continue;
    if (suspect.any_slow_partner) {
      suspect.open = false;
      continue;
    }
    // Every member fine with a good partner: the slowness is among them; measure them again.
    suspect.stage = Stage::repeat;
    const std::size_t half = suspect.members.size() / 2;
    suspect.left.assign(suspect.members.begin(), suspect.members.begin() + half);
    suspect.right.assign(suspect.members.begin() + half, suspect.members.end());
  }
  ++step_;
  plan();
}

void Bisection::plan() {
  planned_.clear();
  planned_for_.clear();
  std::vector<char> used(static_cast<std::size_t>(nodes_), 0);
  const auto take = [&](const std::vector<int>& members) {
    for (const int node : members) used[static_cast<std::size_t>(node)] = 1;
  };
  const auto free_good = [&](int except) {
    for (int node = 0; node < nodes_; ++node) {
      if (good_[static_cast<std::size_t>(node)] && !used[static_cast<std::size_t>(node)] &&
          node != except)
        return node;
    }
    return -1;
  };
  const auto all_free = [&](const std::vector<int>& members) {
    return std::none_of(members.begin(), members.end(),
                        [&](int node) { return used[static_cast<std::size_t>(node)] != 0; });
  };
  std::size_t largest = 0;
  for (std::size_t s = 0; s < suspects_.size(); ++s) {
    Suspect& suspect = suspects_[s];
    if (!suspect.open) continue;
    const int owner = static_cast<int>(s);
    if (suspect.stage == Stage::split || suspect.stage == Stage::repeat) {
      if (!all_free(suspect.members)) continue;
      take(suspect.members);
      if (suspect.stage == Stage::repeat) {
        planned_.push_back({suspect.members, BisectRole::repeat, -1});
        planned_for_.push_back(owner);
        largest = std::max(largest, suspect.members.size());
        continue;
      }
      const std::size_t half = suspect.members.size() / 2;
      const std::vector<int> low(suspect.members.begin(), suspect.members.begin() + half);
      const std::vector<int> high(suspect.members.begin() + half, suspect.members.end());
      for (const auto* part : {&low, &high}) {
        planned_.push_back({*part, BisectRole::half, -1});
        planned_for_.push_back(owner);
        largest = std::max(largest, part->size());
      }
      continue;
    }
    for (const int node : suspect.untested) {
      if (used[static_cast<std::size_t>(node)]) continue;
      const int partner = free_good(node);
      if (partner < 0) break;
      std::vector<int> pair{std::min(node, partner), std::max(node, partner)};
      take(pair);
      planned_.push_back({pair, BisectRole::partner, node});
      planned_for_.push_back(owner);
      largest = std::max<std::size_t>(largest, 2);
    }
  }
  if (planned_.empty()) {
    // Suspects remain that no known-good node can be compared with: named, never passed.
    for (Suspect& suspect : suspects_) {
      if (!suspect.open) continue;
      suspect.open = false;
      conclude(BisectConclusion::Kind::unsettled, suspect.members, suspect.evidence);
    }
    return;
  }
  // Step 1 compares the halves with each other and the world; later steps add known-good nodes of
  // the largest group's size (or as many as are free) as their reference.
  if (step_ < 2) return;
  std::vector<int> reference;
  for (int node = 0; node < nodes_ && reference.size() < largest; ++node) {
    if (good_[static_cast<std::size_t>(node)] && !used[static_cast<std::size_t>(node)])
      reference.push_back(node);
  }
  if (reference.size() >= 2) {
    planned_.push_back({reference, BisectRole::reference, -1});
    planned_for_.push_back(-1);
  }
}

}  // namespace fabcheck
