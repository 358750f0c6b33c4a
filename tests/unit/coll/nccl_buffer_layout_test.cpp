// Where inputs and outputs live in the NCCL backend's buffers, out-of-place and in-place.
#include <gtest/gtest.h>

#include "bench/coll/buffer_layout.hpp"
#include "bench/coll/register.hpp"

namespace fabcheck {
namespace {

// The NCCL backend's layout of the collective named `name`.
BufferLayout nccl_layout(const char* name, Placement placement, const CollectiveShape& shape,
                         int rank) {
  const Collective& collective = find_collective(name);
  return buffer_layout(collective, collective.nccl_layout, placement, shape, rank);
}

CollectiveShape shape_of(std::uint64_t send_count, std::uint64_t recv_count) {
  return {recv_count * 4, recv_count, send_count, recv_count};
}

TEST(NcclBufferLayout, OutOfPaceUsesTwoBuffersFromTheirStart) {
  const auto layout = nccl_layout("all_gather", Placement::out_of_place, shape_of(4, 16), 2);
  EXPECT_FALSE(layout.in_place);
  EXPECT_EQ(layout.send_elements, 4u);
  EXPECT_EQ(layout.recv_elements, 16u);
  EXPECT_EQ(layout.input_offset, 0u);
  EXPECT_EQ(layout.output_offset, 0u);
  EXPECT_EQ(layout.output_count, 16u);
}

TEST(NcclBufferLayout, InPlaceAllGatherInputIsTheRanksBlock) {
  const auto layout = nccl_layout("all_gather", Placement::in_place, shape_of(4, 16), 2);
  EXPECT_TRUE(layout.in_place);
  EXPECT_EQ(layout.send_elements, 16u);
  EXPECT_EQ(layout.recv_elements, 0u);
  EXPECT_EQ(layout.input_offset, 8u);
  EXPECT_EQ(layout.input_count, 4u);
  EXPECT_EQ(layout.output_offset, 0u);
  EXPECT_EQ(layout.output_count, 16u);
}

TEST(NcclBufferLayout, InPlaceReduceScatterOutputIsTheRanksBlock) {
  const auto layout = nccl_layout("reduce_scatter", Placement::in_place, shape_of(12, 3), 1);
  EXPECT_EQ(layout.send_elements, 12u);
  EXPECT_EQ(layout.input_offset, 0u);
  EXPECT_EQ(layout.input_count, 12u);
  EXPECT_EQ(layout.output_offset, 3u);
  EXPECT_EQ(layout.output_count, 3u);
}

TEST(NcclBufferLayout, InPlaceAllReduceSharesOneBuffer) {
  const auto layout = nccl_layout("all_reduce", Placement::in_place, shape_of(10, 10), 3);
  EXPECT_EQ(layout.send_elements, 10u);
  EXPECT_EQ(layout.input_offset, 0u);
  EXPECT_EQ(layout.output_offset, 0u);
}

}  // namespace
}  // namespace fabcheck
