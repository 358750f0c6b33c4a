// Cross-rank agreement: after a step that may fail on some ranks only, one exchange tells every
// rank whether all succeeded, so no rank walks into a World collective the others have skipped.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bench/core/world.hpp"

namespace fabcheck {

// Thrown on every rank when a step failed on at least one: names the first failing rank, its host
// and its error ("device selection failed on rank 1 (node-b): no CUDA device; also on 2 other
// ranks").
class RankFailure : public std::runtime_error {
 public:
  RankFailure(const std::string& message, int failed_rank)
      : std::runtime_error(message), failed_rank_(failed_rank) {}
  int failed_rank() const { return failed_rank_; }  // the lowest failing rank

 private:
  int failed_rank_;
};

// Every rank calls this with its own outcome of `step` (empty: success). Returns when every rank
// succeeded; otherwise throws RankFailure on every rank. One gather and one broadcast.
void agree_on_success(World& world, std::string_view step, const std::string& my_error);

// Runs `body` on this rank, catches what it throws, and agrees with every other rank: the failure
// of any rank becomes a RankFailure on all of them.
void run_on_every_rank(World& world, std::string_view step, const std::function<void()>& body);

}  // namespace fabcheck
