// HangDetector: from the checkpoints each rank has reached, decides when a step is overdue and
// names the ranks that did not arrive. Pure logic; the World implementations feed it and act on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

class HangDetector {
 public:
  // `rank_names[r]` describes rank r in messages ("rank 1 (node-b)").
  explicit HangDetector(std::vector<std::string> rank_names, double silent_after_s = 2);

  // Rank `rank` reached checkpoint number `phase` (0, 1, 2, ... in the same order on every rank),
  // which starts step `label` that should end within `timeout_s`, at time `now` (seconds).
  void arrive(int rank, int phase, const std::string& label, double timeout_s, double now);

  // Rank `rank` has entered `operations` operations so far (World::mark_progress), as heard at
  // `now`.
  void progress(int rank, std::uint64_t operations, double now);

  // The message to report when the step the slowest ranks are in has outlived its timeout:
  //  - some ranks went past it: "step "X" exceeded 30 s: rank 1 (node-b) did not arrive at "Y"
  //    (3 of 4 ranks did)";
  //  - no rank went past it: "step "X" exceeded 30 s on all 4 ranks: none finished it", followed,
  //    when progress tells, by the ranks that are behind ("rank 2 (node-c) entered 40 operations,
  //    the others 41") and those not heard from for `silent_after_s` ("rank 3 (node-d) silent for
  //    12 s: stopped or dead").
  std::optional<std::string> overdue(double now) const;

  // Every rank has reached `phase` or beyond.
  bool all_reached(int phase) const;

  // Renames rank `rank` in messages (its host becomes known when its sentinel says hello).
  void name_rank(int rank, std::string name);
  const std::string& rank_name(int rank) const;
  int size() const { return static_cast<int>(rank_names_.size()); }

 private:
  struct Step {
    std::string label;
    double timeout_s = 0;
    double first_arrival = 0;
  };
  std::vector<std::string> rank_names_;
  std::vector<int> reached_;  // last phase each rank reached; -1 before the first
  std::vector<Step> steps_;   // by phase
  double silent_after_s_;
  std::vector<std::uint64_t> operations_;  // last progress each rank reported
  std::vector<double> last_heard_;         // when; < 0 before the first report
};

}  // namespace fabcheck
