// The watchdog's TCP channel: messages arrive whole and in order, from several clients; a dead
// endpoint is reported, not hung on.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "bench/core/watch_channel.hpp"

namespace fabcheck {
namespace {

std::vector<WatchMessage> drain(WatchServer& server, std::size_t expected) {
  std::vector<WatchMessage> received;
  for (int i = 0; i < 200 && received.size() < expected; ++i) {
    server.poll([&received](const WatchMessage& m) { received.push_back(m); });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return received;
}

TEST(WatchChannel, MessagesFromSeveralRanksArriveWholeAndInOrder) {
  WatchServer server;
  EXPECT_GT(server.port(), 0);
  WatchClient one(server.endpoint(), true);
  WatchClient two(server.endpoint(), false);  // by host name or address, not loopback
  for (int i = 0; i < 50; ++i) {
    WatchMessage m;
    m.rank = 1;
    m.kind = WatchMessage::arrival;
    m.phase = i;
    m.timeout_s = 2.5;
    std::strncpy(m.label, "probe coll.all_reduce", sizeof(m.label) - 1);
    one.send(m);
  }
  WatchMessage beat;
  beat.rank = 2;
  beat.kind = WatchMessage::progress;
  beat.operations = 123456789012ull;
  two.send(beat);

  const auto received = drain(server, 51);
  ASSERT_EQ(received.size(), 51u);
  int next_phase = 0;
  for (const auto& m : received) {
    if (m.rank == 1) {
      EXPECT_EQ(m.phase, next_phase++);
      EXPECT_STREQ(m.label, "probe coll.all_reduce");
      EXPECT_DOUBLE_EQ(m.timeout_s, 2.5);
    } else {
      EXPECT_EQ(m.rank, 2);
      EXPECT_EQ(m.operations, 123456789012ull);
    }
  }
}

TEST(WatchChannel, AClosedClientIsNoLongerRead) {
  WatchServer server;
  { WatchClient gone(server.endpoint(), true); }
  EXPECT_TRUE(drain(server, 1).empty());
}

TEST(WatchChannel, UnreachableEndpointNamesWhatWasTried) {
  try {
    WatchClient client("1 no-such-host.invalid", false);  // port 1: nothing listens there
    FAIL() << "connected";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("no-such-host.invalid"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("port 1"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fabcheck
