// Cross-rank agreement: gather each rank's error to the root, broadcast the verdict, throw on all.
#include "bench/core/rank_agreement.hpp"

#include <fmt/format.h>

#include <exception>
#include <optional>

namespace fabcheck {
namespace {

// The root's verdict when some rank failed: the lowest failing rank and the message every rank
// throws.
struct StepFailure {
  int first_rank = -1;
  std::string message;
};

void wire_write(WireWriter& out, const StepFailure& failure) {
  wire_write(out, failure.first_rank);
  wire_write(out, failure.message);
}

void wire_read(WireReader& in, StepFailure& failure) {
  wire_read(in, failure.first_rank);
  wire_read(in, failure.message);
}

// Nothing when every rank succeeded.
std::optional<StepFailure> verdict_of(const World& world, std::string_view step,
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
  if (first < 0) return std::nullopt;
  std::string message = fmt::format("{} failed on {}: {}", step, world.describe_rank(first),
                                    errors[static_cast<std::size_t>(first)]);
  if (others > 0)
    message += fmt::format("; also on {} other rank{}", others, others == 1 ? "" : "s");
  return StepFailure{first, std::move(message)};
}

}  // namespace

void agree_on_success(World& world, std::string_view step, const std::string& my_error) {
  const auto errors = world.gather_values(my_error);
  const auto failure = world.broadcast_value(world.is_root() ? verdict_of(world, step, errors)
                                                             : std::optional<StepFailure>());
  if (failure) throw RankFailure(failure->message, failure->first_rank);
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
