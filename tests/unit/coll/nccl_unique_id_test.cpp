// ncclUniqueId as hex, and its exchange through the World (whole world and per host).
#include <gtest/gtest.h>

#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_unique_id.hpp"
#include "tests/unit/coll/nccl_doubles.hpp"

namespace fabcheck {
namespace {

using testing::id_filled_with;
using testing::ScriptedWorld;

TEST(NcclUniqueId, EncodesTwoLowercaseHexDigitsPerByte) {
  NcclUniqueIdBytes id{};
  id[0] = 0x00;
  id[1] = 0xff;
  id[2] = 0x1a;
  id[127] = 0x7e;
  const std::string hex = encode_unique_id(id);
  ASSERT_EQ(hex.size(), 256u);
  EXPECT_EQ(hex.substr(0, 6), "00ff1a");
  EXPECT_EQ(hex.substr(6, 4), "0000");
  EXPECT_EQ(hex.substr(254), "7e");
  EXPECT_EQ(decode_unique_id(hex), id);
}

TEST(NcclUniqueId, DecodeAcceptsUppercase) {
  EXPECT_EQ(decode_unique_id(std::string(256, 'A')), id_filled_with(0xaa));
}

TEST(NcclUniqueId, DecodeRejectsWrongLengthAndNonHex) {
  try {
    decode_unique_id("abcd");
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_STREQ(error.what(), "nccl: unique id \"abcd\" has 4 hex characters, expected 256");
  }
  std::string bad(256, '0');
  bad[11] = 'g';
  try {
    decode_unique_id(bad);
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_NE(std::string(error.what()).find("is not hex at character 11"), std::string::npos)
        << error.what();
  }
}

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
  std::string expected_hex;
  for (int i = 0; i < 128; ++i) expected_hex += "42";
  EXPECT_EQ(root.broadcast_sent[0], expected_hex);

  ScriptedWorld other(1, {"a", "b"}, true);
  other.broadcast_reply = encode_unique_id(id_filled_with(0x42));
  const auto received = exchange_unique_id(other, [&]() -> NcclUniqueIdBytes {
    ADD_FAILURE() << "only the root makes the id";
    return {};
  });
  EXPECT_EQ(received, id_filled_with(0x42));
  EXPECT_EQ(other.broadcast_sent, std::vector<std::string>{""});
}

TEST(NcclUniqueId, PerHostEveryHostsFirstRankMakesOne) {
  const std::vector<std::string> hosts{"a", "a", "b", "b"};
  const std::string hex_a = encode_unique_id(id_filled_with(0x0a));
  const std::string hex_b = encode_unique_id(id_filled_with(0x0b));
  const std::string joined = wire_encode(std::vector<std::string>{hex_a, "", hex_b, ""});

  ScriptedWorld root(0, hosts, true);
  root.gather_reply = {"", wire_encode(std::string()), wire_encode(hex_b),
                       wire_encode(std::string())};
  EXPECT_EQ(exchange_unique_id_per_host(root, [] { return id_filled_with(0x0a); }),
            id_filled_with(0x0a));
  EXPECT_EQ(root.gathered_mine, std::vector<std::string>{wire_encode(hex_a)});
  EXPECT_EQ(root.broadcast_sent, std::vector<std::string>{joined});

  ScriptedWorld second_of_b(3, hosts, true);
  second_of_b.broadcast_reply = joined;
  EXPECT_EQ(exchange_unique_id_per_host(second_of_b,
                                        []() -> NcclUniqueIdBytes {
                                          ADD_FAILURE() << "rank 3 is not its host's first";
                                          return {};
                                        }),
            id_filled_with(0x0b));
  EXPECT_EQ(second_of_b.gathered_mine, std::vector<std::string>{wire_encode(std::string())});
}

TEST(NcclUniqueId, PerHostRejectsAReplyOfTheWrongShape) {
  ScriptedWorld rank1(1, {"a", "a", "b"}, true);
  // One id for three ranks, and the old newline-joined text: both refused, not read past.
  rank1.broadcast_reply =
      wire_encode(std::vector<std::string>{encode_unique_id(id_filled_with(1))});
  EXPECT_THROW(exchange_unique_id_per_host(rank1, [] { return id_filled_with(1); }), WireError);
  rank1.broadcast_reply = encode_unique_id(id_filled_with(1)) + "\n";
  EXPECT_THROW(exchange_unique_id_per_host(rank1, [] { return id_filled_with(1); }), WireError);
}

}  // namespace
}  // namespace fabcheck
