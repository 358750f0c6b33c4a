// HangDetector: overdue steps and the ranks that did not arrive.
#include "bench/core/hang_detector.hpp"

#include <algorithm>
#include <cmath>

namespace fabcheck {

HangDetector::HangDetector(std::vector<std::string> rank_names, double silent_after_s)
    : rank_names_(std::move(rank_names)),
      reached_(rank_names_.size(), -1),
      silent_after_s_(silent_after_s),
      operations_(rank_names_.size(), 0),
      last_heard_(rank_names_.size(), -1) {}

void HangDetector::progress(int rank, std::uint64_t operations, double now) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= reached_.size()) return;
  const auto r = static_cast<std::size_t>(rank);
  operations_[r] = std::max(operations_[r], operations);
  last_heard_[r] = now;
}

void HangDetector::arrive(int rank, int phase, const std::string& label, double timeout_s,
                          double now) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= reached_.size() || phase < 0) return;
  const auto index = static_cast<std::size_t>(phase);
  if (steps_.size() <= index) steps_.resize(index + 1);
  Step& step = steps_[index];
  if (step.label.empty()) {
    step.label = label;
    step.timeout_s = timeout_s;
    step.first_arrival = now;
  }
  reached_[static_cast<std::size_t>(rank)] =
      std::max(reached_[static_cast<std::size_t>(rank)], phase);
}

void HangDetector::name_rank(int rank, std::string name) {
  if (rank >= 0 && rank < size()) rank_names_[static_cast<std::size_t>(rank)] = std::move(name);
}

const std::string& HangDetector::rank_name(int rank) const {
  static const std::string unknown = "an unknown rank";
  return rank >= 0 && rank < size() ? rank_names_[static_cast<std::size_t>(rank)] : unknown;
}

bool HangDetector::all_reached(int phase) const {
  return std::all_of(reached_.begin(), reached_.end(), [phase](int r) { return r >= phase; });
}

std::optional<std::string> HangDetector::overdue(double now) const {
  if (reached_.empty()) return std::nullopt;
  const int slowest = *std::min_element(reached_.begin(), reached_.end());
  const int fastest = *std::max_element(reached_.begin(), reached_.end());
  if (slowest < 0) {
    // Someone has not even reached the first checkpoint; time it from the first arrival.
    if (steps_.empty() || steps_[0].label.empty()) return std::nullopt;
  }
  const int step_index = std::max(slowest, 0);
  const Step& step = steps_[static_cast<std::size_t>(step_index)];
  if (slowest < 0) {
    if (now - step.first_arrival <= step.timeout_s) return std::nullopt;
  } else if (now - step.first_arrival <= step.timeout_s) {
    return std::nullopt;
  }
  const auto seconds = std::to_string(static_cast<long long>(std::llround(step.timeout_s)));
  const int nranks = static_cast<int>(reached_.size());
  if (fastest == slowest && slowest >= 0) {
    std::string message = "step \"" + step.label + "\" exceeded " + seconds + " s on all " +
                          std::to_string(nranks) + " ranks: none finished it";
    const std::uint64_t most = *std::max_element(operations_.begin(), operations_.end());
    for (std::size_t r = 0; r < operations_.size(); ++r) {
      if (operations_[r] < most) {
        message += "; " + rank_names_[r] + " entered " + std::to_string(operations_[r]) +
                   " operations, the most any rank entered is " + std::to_string(most);
      }
    }
    for (std::size_t r = 0; r < last_heard_.size(); ++r) {
      if (last_heard_[r] >= 0 && now - last_heard_[r] > silent_after_s_) {
        message += "; " + rank_names_[r] + " silent for " +
                   std::to_string(static_cast<long long>(now - last_heard_[r])) +
                   " s: stopped or dead";
      }
    }
    return message;
  }
  std::string missing;
  int arrived = 0;
  for (std::size_t r = 0; r < reached_.size(); ++r) {
    if (reached_[r] > slowest) {
      ++arrived;
    } else {
      missing += (missing.empty() ? "" : ", ") + rank_names_[r];
    }
  }
  const Step& next = steps_[static_cast<std::size_t>(slowest + 1)];
  const std::string waited_for =
      slowest < 0 ? "the start of the run" : "step \"" + step.label + "\"";
  return waited_for + " exceeded " + seconds + " s: " + missing + " did not arrive at \"" +
         next.label + "\" (" + std::to_string(arrived) + " of " + std::to_string(nranks) +
         " ranks did)";
}

}  // namespace fabcheck
