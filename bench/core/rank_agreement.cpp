// Cross-rank agreement: gather each rank's error to the root, broadcast the verdict, throw on all.
#include "bench/core/rank_agreement.hpp"

#include <fmt/format.h>

#include <exception>

namespace fabcheck {
namespace {

// The root's verdict: "" when every rank succeeded, else "<lowest failing rank>\n<message>".
std::string verdict_of(const World& world, std::string_view step,
                       const std::vector<std::string>& errors) {
  int first = -1;
  int others = 0;
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    if (first < 0) {
      first = static_cast<int>(r);
    } else {
      ++others;
    }
  }
  if (first < 0) return {};
  std::string message = fmt::format("{} failed on {}: {}", step, world.describe_rank(first),
                                    errors[static_cast<std::size_t>(first)]);
  if (others > 0)
    message += fmt::format("; also on {} other rank{}", others, others == 1 ? "" : "s");
  return std::to_string(first) + "\n" + message;
}

}  // namespace

void agree_on_success(World& world, std::string_view step, const std::string& my_error) {
  const auto errors = world.gather_to_root(my_error);
  std::string verdict = world.is_root() ? verdict_of(world, step, errors) : std::string();
  verdict = world.broadcast_from_root(verdict);
  if (verdict.empty()) return;
  const auto newline = verdict.find('\n');
  throw RankFailure(verdict.substr(newline + 1), std::stoi(verdict.substr(0, newline)));
}

void run_on_every_rank(World& world, std::string_view step, const std::function<void()>& body) {
  std::string error;
  try {
    body();
  } catch (const std::exception& failure) {
    // A rank whose exception says nothing still failed: its error must not read as success.
    error = *failure.what() != '\0' ? failure.what() : "unnamed error";
  } catch (...) {
    error = "unknown exception";
  }
  agree_on_success(world, step, error);
}

}  // namespace fabcheck
