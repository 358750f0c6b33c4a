// The watchdog's TCP channel: messages arrive whole and in order both ways, from several clients;
// a closed connection is reported; a dead endpoint is reported, not hung on.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/core/watch_channel.hpp"

namespace fabcheck {
namespace {

std::vector<std::pair<int, WatchMessage>> drain(WatchServer& server, std::size_t expected,
                                                std::vector<int>* closed = nullptr) {
  std::vector<std::pair<int, WatchMessage>> received;
  for (int i = 0; i < 400 && received.size() < expected; ++i) {
    server.poll([&received](int c, const WatchMessage& m) { received.emplace_back(c, m); },
                [closed](int c) {
                  if (closed) closed->push_back(c);
                });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return received;
}

TEST(WatchChannel, FramingKeepsTextAndFieldsAndWaitsForWholeMessages) {
  WatchMessage m;
  m.kind = WatchMessage::end;
  m.rank = 7;
  m.phase = 2;
  m.timeout_s = 1.25;
  m.operations = 99;
  m.text = std::string(5000, 'x');  // longer than kMaxText: cut
  std::string bytes = encode_watch_message(m) + encode_watch_message(WatchMessage{});
  std::string partial = bytes.substr(0, 10);
  EXPECT_TRUE(decode_watch_messages(partial).empty());
  EXPECT_EQ(partial.size(), 10u);  // kept until the rest arrives
  const auto messages = decode_watch_messages(bytes);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_TRUE(bytes.empty());
  EXPECT_EQ(messages[0].kind, WatchMessage::end);
  EXPECT_EQ(messages[0].rank, 7);
  EXPECT_EQ(messages[0].phase, 2);
  EXPECT_DOUBLE_EQ(messages[0].timeout_s, 1.25);
  EXPECT_EQ(messages[0].operations, 99u);
  EXPECT_EQ(messages[0].text, std::string(WatchMessage::kMaxText, 'x'));
  EXPECT_EQ(messages[1].kind, WatchMessage::hello);
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
    m.text = "probe coll.all_reduce";
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
  for (const auto& [connection, m] : received) {
    if (m.rank == 1) {
      EXPECT_EQ(m.phase, next_phase++);
      EXPECT_EQ(m.text, "probe coll.all_reduce");
      EXPECT_DOUBLE_EQ(m.timeout_s, 2.5);
    } else {
      EXPECT_EQ(m.rank, 2);
      EXPECT_EQ(m.operations, 123456789012ull);
    }
  }
}

TEST(WatchChannel, TheServerReachesEveryClient) {
  WatchServer server;
  WatchClient one(server.endpoint(), true);
  WatchClient two(server.endpoint(), true);
  WatchMessage hello;
  one.send(hello);
  two.send(hello);
  ASSERT_EQ(drain(server, 2).size(), 2u);  // both accepted
  WatchMessage end;
  end.kind = WatchMessage::end;
  end.text = "rank 1 (node-b) stopped";
  server.send_to_all(end);
  for (WatchClient* client : {&one, &two}) {
    std::vector<WatchMessage> got;
    for (int i = 0; i < 400 && got.empty(); ++i) {
      EXPECT_TRUE(client->poll([&got](const WatchMessage& m) { got.push_back(m); }));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].kind, WatchMessage::end);
    EXPECT_EQ(got[0].text, "rank 1 (node-b) stopped");
  }
}

TEST(WatchChannel, AClosedConnectionIsReportedOnBothSides) {
  auto server = std::make_unique<WatchServer>();
  std::vector<int> closed;
  {
    WatchClient gone(server->endpoint(), true);
    gone.send(WatchMessage{});
    ASSERT_EQ(drain(*server, 1).size(), 1u);
  }
  drain(*server, 1, &closed);
  EXPECT_EQ(closed, std::vector<int>{0});

  WatchClient left(server->endpoint(), true);
  left.send(WatchMessage{});
  ASSERT_EQ(drain(*server, 1).size(), 1u);
  server.reset();
  bool open = true;
  for (int i = 0; i < 400 && open; ++i) {
    open = left.poll([](const WatchMessage&) {});
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(open);
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
