// Typed data between ranks: the wire encoding and World's typed gathers on one process.
#include <gtest/gtest.h>

#include <mutex>

#include "bench/core/wire.hpp"
#include "bench/core/world.hpp"
#include "tests/doubles/thread_world.hpp"

namespace fabcheck {
namespace {

struct HostFacts {
  std::string host;
  std::vector<std::string> devices;
  std::optional<double> rate;
  int ports = 0;
};
void wire_write(WireWriter& out, const HostFacts& value) {
  wire_write(out, value.host);
  wire_write(out, value.devices);
  wire_write(out, value.rate);
  wire_write(out, value.ports);
}
void wire_read(WireReader& in, HostFacts& value) {
  wire_read(in, value.host);
  wire_read(in, value.devices);
  wire_read(in, value.rate);
  wire_read(in, value.ports);
}

TEST(Wire, RoundTripsNestedValuesWithEmptyStringsAndSpaces) {
  using Pairs = std::vector<std::pair<std::string, std::uint64_t>>;
  const Pairs pairs{{"a b", 1}, {"", 0}, {"\n", 7}};
  EXPECT_EQ(wire_decode<Pairs>(wire_encode(pairs), "test"), pairs);
  HostFacts facts{"node a", {"mlx5_0", "", "mlx5 1"}, 400.0, 8};
  const auto back = wire_decode<HostFacts>(wire_encode(facts), "test");
  EXPECT_EQ(back.host, facts.host);
  EXPECT_EQ(back.devices, facts.devices);
  EXPECT_EQ(back.rate, facts.rate);
  EXPECT_EQ(back.ports, 8);
  const std::optional<int> none;
  EXPECT_EQ(wire_decode<std::optional<int>>(wire_encode(none), "test"), none);
}

TEST(Wire, ShortOrLongOrGarbledInputIsAnErrorNamingItsSource) {
  const std::string good = wire_encode(std::vector<std::uint64_t>{1, 2, 3});
  EXPECT_THROW(wire_decode<std::vector<std::uint64_t>>(good.substr(0, good.size() - 1), "rank 3"),
               WireError);
  EXPECT_THROW(wire_decode<std::vector<std::uint64_t>>(good + "x", "rank 3"), WireError);
  // A length far beyond the input is refused before anything is allocated.
  const std::string huge = wire_encode(std::uint64_t{1} << 60);
  try {
    wire_decode<std::string>(huge, "rank 3");
    FAIL() << "no error";
  } catch (const WireError& error) {
    EXPECT_NE(std::string(error.what()).find("rank 3"), std::string::npos);
  }
  EXPECT_THROW(wire_decode<std::vector<int>>(huge, "rank 3"), WireError);
  EXPECT_THROW(wire_decode<std::string>("", "rank 3"), WireError);
}

TEST(WorldTyped, OneProcessGathersAndBroadcastsItsOwnValues) {
  auto world = make_single_world();
  const std::vector<std::uint64_t> mine{4, 0, 2};
  EXPECT_EQ(world->gather_values(mine), std::vector<std::vector<std::uint64_t>>{mine});
  EXPECT_EQ(world->all_gather_values(std::string("x y")), std::vector<std::string>{"x y"});
  EXPECT_EQ(world->broadcast_value(std::optional<int>(5)), std::optional<int>(5));
}

TEST(WorldTyped, FourRanksGatherTheirFactsInRankOrder) {
  const std::vector<std::string> hosts{"node-a", "node-a", "node-b", "node-c"};
  std::mutex mutex;
  std::vector<std::vector<HostFacts>> everyone(hosts.size());
  const auto errors = testing::run_ranks(hosts, [&](World& world) {
    // Ranks send lists of different lengths, with spaces and empty strings: nothing is split on.
    HostFacts mine{
        world.host(), std::vector<std::string>(static_cast<std::size_t>(world.rank()), "a b"),
        world.rank() % 2 ? std::optional<double>(world.rank() * 1.5) : std::nullopt, world.rank()};
    const auto at_root = world.gather_values(mine);
    EXPECT_EQ(at_root.size(), world.is_root() ? hosts.size() : 0u);
    const auto all = world.all_gather_values(mine);
    const auto plan =
        world.broadcast_value(world.is_root() ? std::vector<int>{3, 1, 2} : std::vector<int>{});
    EXPECT_EQ(plan, (std::vector<int>{3, 1, 2}));
    std::lock_guard lock(mutex);
    everyone[static_cast<std::size_t>(world.rank())] = all;
  });
  for (const auto& error : errors) EXPECT_EQ(error, "");
  for (const auto& all : everyone) {
    ASSERT_EQ(all.size(), hosts.size());
    for (std::size_t r = 0; r < all.size(); ++r) {
      EXPECT_EQ(all[r].host, hosts[r]);
      EXPECT_EQ(all[r].devices.size(), r);
      EXPECT_EQ(all[r].ports, static_cast<int>(r));
      EXPECT_EQ(all[r].rate.has_value(), r % 2 == 1);
    }
  }
}

TEST(WorldSplit, OneProcessSplitsIntoItselfAndCountsProgressOnTheParent) {
  auto world = make_single_world();
  EXPECT_EQ(world->split(-1, 0), nullptr);
  auto pair = world->split(0, 0);
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->size(), 1);
  EXPECT_EQ(pair->host(), world->host());
  const auto before = world->progress();
  pair->mark_progress();
  pair->mark_progress();
  EXPECT_EQ(world->progress(), before + 2);
  auto nested = pair->split(3, 0);
  nested->mark_progress();
  EXPECT_EQ(world->progress(), before + 3);
}

}  // namespace
}  // namespace fabcheck
