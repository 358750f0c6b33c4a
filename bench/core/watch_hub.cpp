// WatchHub: every rank's checkpoints, progress and fate, and the decision to end the run.
#include "bench/core/watch_hub.hpp"

#include <cmath>

namespace fabcheck {
namespace {

std::vector<std::string> numbered_ranks(int size) {
  std::vector<std::string> names;
  for (int r = 0; r < size; ++r) names.push_back("rank " + std::to_string(r));
  return names;
}

}  // namespace

WatchHub::WatchHub(int size, double silent_s)
    : detector_(numbered_ranks(size)),
      silent_s_(silent_s),
      last_heard_(static_cast<std::size_t>(size), -1),
      done_(static_cast<std::size_t>(size), false) {}

void WatchHub::name_rank(int rank, const std::string& host) {
  detector_.name_rank(rank, "rank " + std::to_string(rank) + " (" + host + ")");
}

void WatchHub::arrive(int rank, int phase, const std::string& label, double timeout_s, double now) {
  detector_.arrive(rank, phase, label, timeout_s, now);
}

void WatchHub::progress(int rank, std::uint64_t operations, double now) {
  detector_.progress(rank, operations, now);
  if (rank >= 0 && rank < detector_.size()) last_heard_[static_cast<std::size_t>(rank)] = now;
}

void WatchHub::done(int rank) {
  if (rank >= 0 && rank < detector_.size()) done_[static_cast<std::size_t>(rank)] = true;
}

std::optional<EndDecision> WatchHub::poll(double now) {
  std::vector<int> closed;
  server_.poll(
      [&](int connection, const WatchMessage& message) {
        const int rank = message.rank;
        if (rank < 0 || rank >= detector_.size()) return;
        if (rank_of_connection_.size() <= static_cast<std::size_t>(connection))
          rank_of_connection_.resize(static_cast<std::size_t>(connection) + 1, -1);
        rank_of_connection_[static_cast<std::size_t>(connection)] = rank;
        last_heard_[static_cast<std::size_t>(rank)] = now;
        switch (message.kind) {
          case WatchMessage::hello:
            name_rank(rank, message.text);
            if (ended_) {
              WatchMessage end;
              end.kind = WatchMessage::end;
              end.phase = static_cast<std::int32_t>(ended_->kind);
              end.text = ended_->reason;
              server_.send_to_all(end);
            }
            break;
          case WatchMessage::arrival:
            detector_.arrive(rank, message.phase, message.text, message.timeout_s, now);
            break;
          case WatchMessage::progress:
            detector_.progress(rank, message.operations, now);
            break;
          case WatchMessage::end_request:
            if (!requested_)
              requested_ = EndDecision{static_cast<Ending>(message.phase), message.text};
            break;
          case WatchMessage::done:
            done(rank);
            break;
          default:
            break;
        }
      },
      [&](int connection) { closed.push_back(connection); });
  if (requested_) return requested_;
  for (int connection : closed) {
    if (static_cast<std::size_t>(connection) >= rank_of_connection_.size()) continue;
    const int rank = rank_of_connection_[static_cast<std::size_t>(connection)];
    if (rank < 0 || done_[static_cast<std::size_t>(rank)]) continue;
    return EndDecision{Ending::failed, detector_.rank_name(rank) +
                                           ": its sentinel's connection closed before the rank "
                                           "finished (the host or both processes are gone)"};
  }
  for (int rank = 0; rank < detector_.size(); ++rank) {
    const double heard = last_heard_[static_cast<std::size_t>(rank)];
    if (heard < 0 || done_[static_cast<std::size_t>(rank)] || now - heard <= silent_s_) continue;
    return EndDecision{
        Ending::failed,
        detector_.rank_name(rank) + " not heard from for " +
            std::to_string(static_cast<long long>(std::floor(now - heard))) +
            " s: its host is frozen, the network to it is down, or its processes are stopped"};
  }
  if (auto message = detector_.overdue(now))
    return EndDecision{Ending::failed, "timeout: " + *message};
  return std::nullopt;
}

void WatchHub::broadcast_end(const EndDecision& decision) {
  ended_ = decision;
  WatchMessage end;
  end.kind = WatchMessage::end;
  end.phase = static_cast<std::int32_t>(decision.kind);
  end.text = decision.reason;
  server_.send_to_all(end);
}

void WatchHub::heartbeat() {
  WatchMessage beat;
  beat.kind = WatchMessage::heartbeat;
  server_.send_to_all(beat);
}

bool WatchHub::all_done() const {
  for (int rank = 0; rank < detector_.size(); ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    if (!done_[r] && (rank == 0 || last_heard_[r] >= 0)) return false;
  }
  return true;
}

std::vector<int> WatchHub::never_heard() const {
  std::vector<int> ranks;
  for (int rank = 1; rank < detector_.size(); ++rank) {
    if (last_heard_[static_cast<std::size_t>(rank)] < 0) ranks.push_back(rank);
  }
  return ranks;
}

}  // namespace fabcheck
