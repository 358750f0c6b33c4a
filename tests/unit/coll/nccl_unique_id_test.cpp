// ncclUniqueId's exchange through the World (whole world and per host): the bytes as they cross
// ranks, typed, and a reply of the wrong shape refused.
#include <gtest/gtest.h>

#include <optional>

#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_unique_id.hpp"
#include "tests/unit/coll/nccl_doubles.hpp"

namespace fabcheck {
namespace {

using testing::id_filled_with;
using testing::ScriptedWorld;
using MaybeId = std::optional<NcclUniqueIdBytes>;

TEST(NcclUniqueId, RootMakesTheIdAndEveryRankGetsIt) {
  ScriptedWorld root(0, {"a", "b"}, true);
  int made = 0;
  const auto id = exchange_unique_id(root, [&] {
    ++made;
    return id_filled_with(0x42);
  });
  EXPECT_EQ(made, 1);
  EXPECT_EQ(id, id_filled_with(0x42));
  ASSERT_EQ(root.broadcast_sent.size(), 1u);
  // The 128 bytes as they are, nothing around them.
  EXPECT_EQ(root.broadcast_sent[0], std::string(128, '\x42'));

  ScriptedWorld other(1, {"a", "b"}, true);
  other.broadcast_reply = wire_encode(id_filled_with(0x42));
  const auto received = exchange_unique_id(other, [&]() -> NcclUniqueIdBytes {
    ADD_FAILURE() << "only the root makes the id";
    return {};
  });
  EXPECT_EQ(received, id_filled_with(0x42));
  EXPECT_EQ(other.broadcast_sent, std::vector<std::string>{""});
}

TEST(NcclUniqueId, AnIdOfTheWrongSizeIsRefused) {
  ScriptedWorld other(1, {"a", "b"}, true);
  other.broadcast_reply = std::string(127, '\x42');
  EXPECT_THROW(exchange_unique_id(other, [] { return id_filled_with(1); }), WireError);
  other.broadcast_reply = std::string(129, '\x42');
  EXPECT_THROW(exchange_unique_id(other, [] { return id_filled_with(1); }), WireError);
}

TEST(NcclUniqueId, PerHostEveryHostsFirstRankMakesOne) {
  const std::vector<std::string> hosts{"a", "a", "b", "b"};
  const MaybeId id_a = id_filled_with(0x0a);
  const MaybeId id_b = id_filled_with(0x0b);
  const std::string joined = wire_encode(std::vector<MaybeId>{id_a, {}, id_b, {}});

  ScriptedWorld root(0, hosts, true);
  root.gather_reply = {"", wire_encode(MaybeId()), wire_encode(id_b), wire_encode(MaybeId())};
  EXPECT_EQ(exchange_unique_id_per_host(root, [] { return id_filled_with(0x0a); }),
            id_filled_with(0x0a));
  EXPECT_EQ(root.gathered_mine, std::vector<std::string>{wire_encode(id_a)});
  EXPECT_EQ(root.broadcast_sent, std::vector<std::string>{joined});

  ScriptedWorld second_of_b(3, hosts, true);
  second_of_b.broadcast_reply = joined;
  EXPECT_EQ(exchange_unique_id_per_host(second_of_b,
                                        []() -> NcclUniqueIdBytes {
                                          ADD_FAILURE() << "rank 3 is not its host's first";
                                          return {};
                                        }),
            id_filled_with(0x0b));
  EXPECT_EQ(second_of_b.gathered_mine, std::vector<std::string>{wire_encode(MaybeId())});
}

TEST(NcclUniqueId, PerHostRejectsAReplyOfTheWrongShape) {
  ScriptedWorld rank1(1, {"a", "a", "b"}, true);
  // One id for three ranks, and the id without its list around it: both refused, not read past.
  rank1.broadcast_reply = wire_encode(std::vector<MaybeId>{id_filled_with(1)});
  EXPECT_THROW(exchange_unique_id_per_host(rank1, [] { return id_filled_with(1); }), WireError);
  rank1.broadcast_reply = wire_encode(id_filled_with(1));
  EXPECT_THROW(exchange_unique_id_per_host(rank1, [] { return id_filled_with(1); }), WireError);
}

TEST(NcclUniqueId, PerHostAHostWithoutAnIdIsAnError) {
  ScriptedWorld rank1(1, {"a", "b"}, true);
  rank1.broadcast_reply = wire_encode(std::vector<MaybeId>{id_filled_with(1), {}});
  EXPECT_THROW(exchange_unique_id_per_host(rank1, [] { return id_filled_with(1); }), NcclError);
}

}  // namespace
}  // namespace fabcheck
