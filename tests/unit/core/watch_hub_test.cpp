// The watchdog in rank 0's sentinel: what ends the run (a sentinel's request, a rank gone before
// it finished, a silent host, an overdue step) and when it may let go (every heard rank done).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/core/watch_hub.hpp"

namespace fabcheck {
namespace {

// Polls until a decision or `tries` rounds pass.
std::optional<EndDecision> poll_for(WatchHub& hub, double now, int tries = 200) {
  for (int i = 0; i < tries; ++i) {
    if (auto decision = hub.poll(now)) return decision;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}

WatchMessage message(WatchMessage::Kind kind, int rank, std::string text = "") {
  WatchMessage m;
  m.kind = kind;
  m.rank = rank;
  m.text = std::move(text);
  return m;
}

TEST(WatchHub, ARequestToEndComesBackToEverySentinel) {
  WatchHub hub(3, 10);
  WatchClient one(hub.endpoint(), true);
  WatchClient two(hub.endpoint(), true);
  one.send(message(WatchMessage::hello, 1, "node-b"));
  two.send(message(WatchMessage::hello, 2, "node-c"));
  WatchMessage request = message(WatchMessage::end_request, 1, "rank 1 (node-b) stopped");
  request.phase = static_cast<std::int32_t>(Ending::failed);
  one.send(request);
  const auto decision = poll_for(hub, 100);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->kind, Ending::failed);
  EXPECT_EQ(decision->reason, "rank 1 (node-b) stopped");
  EXPECT_EQ(hub.rank_name(2), "rank 2 (node-c)");
  hub.broadcast_end(*decision);
  for (WatchClient* client : {&one, &two}) {
    std::optional<WatchMessage> end;
    for (int i = 0; i < 200 && !end; ++i) {
      client->poll([&end](const WatchMessage& m) {
        if (m.kind == WatchMessage::end) end = m;
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(end->text, "rank 1 (node-b) stopped");
    EXPECT_EQ(static_cast<Ending>(end->phase), Ending::failed);
  }
}

TEST(WatchHub, ASentinelGoneBeforeItsRankFinishedEndsTheRun) {
  WatchHub hub(2, 10);
  {
    WatchClient gone(hub.endpoint(), true);
    gone.send(message(WatchMessage::hello, 1, "node-b"));
    ASSERT_FALSE(poll_for(hub, 100, 20).has_value());
  }
  const auto decision = poll_for(hub, 100);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->kind, Ending::failed);
  EXPECT_NE(decision->reason.find("rank 1 (node-b)"), std::string::npos) << decision->reason;
}

TEST(WatchHub, ASentinelThatSaidDoneMayLeave) {
  WatchHub hub(2, 10);
  EXPECT_FALSE(hub.all_done());
  {
    WatchClient finished(hub.endpoint(), true);
    finished.send(message(WatchMessage::hello, 1, "node-b"));
    finished.send(message(WatchMessage::done, 1));
  }
  EXPECT_FALSE(poll_for(hub, 100, 40).has_value());
  EXPECT_FALSE(hub.all_done());  // rank 0 still runs
  hub.done(0);
  EXPECT_TRUE(hub.all_done());
}

TEST(WatchHub, ASilentSentinelEndsTheRunNamingItsHost) {
  WatchHub hub(2, 10);
  WatchClient quiet(hub.endpoint(), true);
  quiet.send(message(WatchMessage::hello, 1, "node-b"));
  ASSERT_FALSE(poll_for(hub, 100, 20).has_value());  // heard at 100
  EXPECT_FALSE(hub.poll(109).has_value());
  const auto decision = hub.poll(111);
  ASSERT_TRUE(decision.has_value());
  EXPECT_NE(decision->reason.find("rank 1 (node-b) not heard from for 11 s"), std::string::npos)
      << decision->reason;
}

TEST(WatchHub, AnOverdueStepNamesTheRankThatDidNotArrive) {
  WatchHub hub(2, 1000);
  WatchClient other(hub.endpoint(), true);
  other.send(message(WatchMessage::hello, 1, "node-b"));
  WatchMessage arrival = message(WatchMessage::arrival, 1, "probe coll.all_reduce");
  arrival.phase = 0;
  arrival.timeout_s = 5;
  other.send(arrival);
  hub.arrive(0, 0, "probe coll.all_reduce", 5, 100);
  ASSERT_FALSE(poll_for(hub, 100, 20).has_value());
  hub.arrive(0, 1, "gather results of coll.all_reduce", 120, 101);
  const auto decision = hub.poll(106);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->reason.rfind("timeout: ", 0), 0u) << decision->reason;
  EXPECT_NE(decision->reason.find("rank 1 (node-b) did not arrive"), std::string::npos)
      << decision->reason;
}

TEST(WatchHub, ASentinelThatSaysHelloAfterTheEndStillHearsIt) {
  WatchHub hub(2, 10);
  hub.broadcast_end({Ending::interrupted, "interrupted by SIGINT"});
  WatchClient late(hub.endpoint(), true);
  late.send(message(WatchMessage::hello, 1, "node-b"));
  std::optional<WatchMessage> end;
  for (int i = 0; i < 200 && !end; ++i) {
    hub.poll(100);
    late.poll([&end](const WatchMessage& m) {
      if (m.kind == WatchMessage::end) end = m;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->text, "interrupted by SIGINT");
}

}  // namespace
}  // namespace fabcheck
