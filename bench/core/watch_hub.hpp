// WatchHub: the watchdog, in rank 0's sentinel (sentinel.hpp). It hears every other rank's
// sentinel over the watch channel (their checkpoints, progress, and requests to end the run when
// their rank stopped, died or was interrupted) and its own rank through RankStatus, and decides
// when the run must end: a step outlived its limit (naming the ranks that did not arrive), a
// sentinel went silent or its connection dropped before its rank was done, or a sentinel asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/hang_detector.hpp"
#include "bench/core/rank_status.hpp"
#include "bench/core/watch_channel.hpp"

namespace fabcheck {

struct EndDecision {
  Ending kind = Ending::failed;
  std::string reason;
};

class WatchHub {
 public:
  // `size` ranks; `rank_names` start as "rank N" and gain their host when each sentinel says
  // hello. A sentinel not heard from for `silent_s` ends the run. Throws std::runtime_error when
  // it cannot listen.
  WatchHub(int size, double silent_s);

  std::string endpoint() const { return server_.endpoint(); }
  void name_rank(int rank, const std::string& host);
  const std::string& rank_name(int rank) const { return detector_.rank_name(rank); }

  // What rank 0's own sentinel reads from its rank.
  void arrive(int rank, int phase, const std::string& label, double timeout_s, double now);
  void progress(int rank, std::uint64_t operations, double now);
  void done(int rank);

  // Receives what the sentinels sent; the first reason to end the run, if there is one.
  std::optional<EndDecision> poll(double now);
  // Tells every sentinel (each then ends its rank), and keeps telling it to any that says hello.
  void broadcast_end(const EndDecision& decision);
  // Tells every sentinel the watchdog is alive (call twice a second).
  void heartbeat();
  // Every rank whose sentinel was heard from, and rank 0, has exited by itself.
  bool all_done() const;
  // Ranks whose sentinel never said hello.
  std::vector<int> never_heard() const;

 private:
  WatchServer server_;
  HangDetector detector_;
  double silent_s_;
  std::vector<double> last_heard_;  // < 0: never
  std::vector<bool> done_;
  std::vector<int> rank_of_connection_;
  std::optional<EndDecision> requested_;
  std::optional<EndDecision> ended_;
};

}  // namespace fabcheck
