// Bus factors, bandwidths and buffer shapes against hand-computed values (nccl-tests' formulas).
#include <gtest/gtest.h>

#include <stdexcept>

#include "bench/coll/collective.hpp"
#include "bench/coll/register.hpp"

namespace fabcheck {
namespace {

TEST(BusFactor, AllReduceIsTwoTimesNMinusOneOverN) {
  EXPECT_DOUBLE_EQ(bus_factor(find_collective("all_reduce"), 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(find_collective("all_reduce"), 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(find_collective("all_reduce"), 3), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(bus_factor(find_collective("all_reduce"), 8), 1.75);
}

TEST(BusFactor, GatherScatterAlltoallAreNMinusOneOverN) {
  for (const char* name : {"all_gather", "reduce_scatter", "alltoall"}) {
    const Collective& c = find_collective(name);
    EXPECT_DOUBLE_EQ(bus_factor(c, 1), 0.0) << c.name();
    EXPECT_DOUBLE_EQ(bus_factor(c, 2), 0.5) << c.name();
    EXPECT_DOUBLE_EQ(bus_factor(c, 3), 2.0 / 3.0) << c.name();
    EXPECT_DOUBLE_EQ(bus_factor(c, 8), 0.875) << c.name();
  }
}

TEST(BusFactor, BroadcastAndSendrecvAreOne) {
  for (int n : {1, 2, 3, 8}) {
    EXPECT_DOUBLE_EQ(bus_factor(find_collective("broadcast"), n), 1.0);
    EXPECT_DOUBLE_EQ(bus_factor(find_collective("sendrecv"), n), 1.0);
  }
}

TEST(Bandwidth, AlgbwIsBytesOverSecondsInGBps) {
  // 1 GiB in 0.5 s = 2.147483648 GB/s; busbw of an 8-rank all-reduce = 1.75 x that.
  EXPECT_DOUBLE_EQ(algbw_gbps(1ull << 30, 0.5), 2.147483648);
  EXPECT_DOUBLE_EQ(algbw_gbps(1ull << 30, 0.5) * bus_factor(find_collective("all_reduce"), 8),
                   3.758096384);
  // 256 MiB in 10 ms over 3 ranks' all-gather: algbw 26.8435456, busbw x 2/3.
  EXPECT_NEAR(algbw_gbps(256ull << 20, 0.01) * bus_factor(find_collective("all_gather"), 3),
              17.8956970667, 1e-9);
  EXPECT_EQ(algbw_gbps(100, 0), 0.0);
}

TEST(Shape, AllReduceUsesTheWholeBuffer) {
  const auto shape = collective_shape(find_collective("all_reduce"), 1024, 3, 4);
  EXPECT_EQ(shape.size_bytes, 1024u);
  EXPECT_EQ(shape.count, 256u);
  EXPECT_EQ(shape.send_count, 256u);
  EXPECT_EQ(shape.recv_count, 256u);
}

TEST(Shape, AllGatherRoundsDownToWholeElementsPerRank) {
  // 1000 B = 250 floats; 3 ranks -> 83 each, 249 in all, 996 B.
  const auto shape = collective_shape(find_collective("all_gather"), 1000, 3, 4);
  EXPECT_EQ(shape.send_count, 83u);
  EXPECT_EQ(shape.recv_count, 249u);
  EXPECT_EQ(shape.count, 249u);
  EXPECT_EQ(shape.size_bytes, 996u);
}

TEST(Shape, ReduceScatterSendsAllReceivesOneBlock) {
  const auto shape = collective_shape(find_collective("reduce_scatter"), 4096, 8, 4);
  EXPECT_EQ(shape.send_count, 1024u);
  EXPECT_EQ(shape.recv_count, 128u);
}

TEST(Shape, AlltoallKeepsWholeBlocksPerPeer) {
  const auto shape =
      collective_shape(find_collective("alltoall"), 100, 8, 4);  // 25 floats -> 3 per peer
  EXPECT_EQ(shape.send_count, 24u);
  EXPECT_EQ(shape.recv_count, 24u);
  EXPECT_EQ(shape.size_bytes, 96u);
}

TEST(Shape, TooSmallForOneElementPerRankIsEmpty) {
  const auto shape = collective_shape(find_collective("all_gather"), 8, 4, 4);  // 2 floats, 4 ranks
  EXPECT_EQ(shape.size_bytes, 0u);
  EXPECT_EQ(shape.count, 0u);
}

TEST(Names, RoundTrip) {
  for (const Collective* c : all_collectives()) EXPECT_EQ(&find_collective(c->name()), c);
  EXPECT_THROW(find_collective("allreduce"), std::logic_error);
}

}  // namespace
}  // namespace fabcheck
