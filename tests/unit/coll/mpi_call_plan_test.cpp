// MPI calls of one collective with 64-bit counts (defect 12: MPI counts are int, 8 GiB of floats is
// 2^31 elements): counts of 2^31 and more are planned without allocating them, and a simulated MPI
// (every rank's plan executed together on host vectors, as MPI would) shows the pieces give the
// exact result of each collective in both placements.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "bench/coll/buffer_layout.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/register.hpp"
#include "bench/coll/verification.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

constexpr std::uint64_t kBig = (std::uint64_t{1} << 31) + 5;  // > INT_MAX elements

CollectiveShape shape(const Collective& collective, std::uint64_t elements, int nranks) {
  return collective_shape(collective, elements * sizeof(float), nranks, sizeof(float));
}

void expect_counts_fit(const std::vector<MpiCall>& calls) {
  for (const MpiCall& call : calls) {
    EXPECT_GT(call.count, 0);
    EXPECT_LE(static_cast<std::uint64_t>(call.count), static_cast<std::uint64_t>(INT_MAX));
  }
}

// [0, total) covered by consecutive pieces at recv_offset.
void expect_covers(const std::vector<MpiCall>& calls, std::uint64_t total) {
  std::uint64_t next = 0;
  for (const MpiCall& call : calls) {
    EXPECT_EQ(call.recv_offset, next);
    EXPECT_EQ(call.send_offset, next);
    next += static_cast<std::uint64_t>(call.count);
  }
  EXPECT_EQ(next, total);
}

TEST(MpiCallPlan, AnAllReduceOfMoreThanIntMaxElementsGoesInPieces) {
  const auto s = shape(find_collective("all_reduce"), kBig, 2);
  ASSERT_EQ(s.recv_count, kBig);
  const auto calls =
      plan_mpi_calls(find_collective("all_reduce"), Placement::out_of_place, s, 0, 2);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].count, INT_MAX);
  EXPECT_EQ(static_cast<std::uint64_t>(calls[1].count), kBig - INT_MAX);
  expect_counts_fit(calls);
  expect_covers(calls, kBig);
  for (const auto& call :
       plan_mpi_calls(find_collective("all_reduce"), Placement::in_place, s, 0, 2)) {
    EXPECT_TRUE(call.in_place);
  }
}

TEST(MpiCallPlan, BroadcastAndSendrecvGoInPiecesToo) {
  for (const char* name : {"broadcast", "sendrecv"}) {
    const Collective& collective = find_collective(name);
    const auto s = shape(collective, 3 * std::uint64_t{INT_MAX} + 1, 4);
    const auto calls = plan_mpi_calls(collective, Placement::out_of_place, s, 1, 4);
    EXPECT_EQ(calls.size(), 4u) << collective.name();
    expect_counts_fit(calls);
    expect_covers(calls, s.recv_count);
  }
  const auto s = shape(find_collective("sendrecv"), kBig, 2);
  for (const auto& call :
       plan_mpi_calls(find_collective("sendrecv"), Placement::in_place, s, 0, 2)) {
    EXPECT_EQ(call.kind, MpiCallKind::sendrecv_replace);
  }
}

TEST(MpiCallPlan, AllGatherBlocksLargerThanIntMaxAreSentInPiecesWithTheBlockStride) {
  // 2 ranks, each contributing 2^31 + 5 floats (an 16 GiB output).
  const auto s = shape(find_collective("all_gather"), 2 * kBig, 2);
  ASSERT_EQ(s.send_count, kBig);
  const auto calls =
      plan_mpi_calls(find_collective("all_gather"), Placement::out_of_place, s, 1, 2);
  ASSERT_EQ(calls.size(), 2u);
  expect_counts_fit(calls);
  expect_covers(calls, kBig);
  for (const auto& call : calls) EXPECT_EQ(call.block_stride, kBig);
}

TEST(MpiCallPlan, AlltoallBlocksLargerThanIntMaxAreSentInPiecesWithTheBlockStride) {
  const auto s = shape(find_collective("alltoall"), 2 * kBig, 2);
  const auto calls = plan_mpi_calls(find_collective("alltoall"), Placement::out_of_place, s, 0, 2);
  ASSERT_EQ(calls.size(), 2u);
  expect_counts_fit(calls);
  for (const auto& call : calls) EXPECT_EQ(call.block_stride, kBig);
}

TEST(MpiCallPlan, AReduceScatterBlockLargerThanIntMaxIsReducedPieceByPieceToEachRank) {
  const auto s = shape(find_collective("reduce_scatter"), 3 * kBig, 3);
  ASSERT_EQ(s.recv_count, kBig);
  const auto calls =
      plan_mpi_calls(find_collective("reduce_scatter"), Placement::out_of_place, s, 2, 3);
  ASSERT_EQ(calls.size(), 6u);  // 2 pieces x 3 roots
  expect_counts_fit(calls);
  EXPECT_EQ(calls[4].kind, MpiCallKind::reduce);
  EXPECT_EQ(calls[4].root, 1);
  EXPECT_EQ(calls[4].send_offset, kBig + INT_MAX);
  EXPECT_EQ(calls[4].recv_offset, static_cast<std::uint64_t>(INT_MAX));
}

TEST(MpiCallPlan, CountsThatFitAreOneCallAsBefore) {
  const auto s = shape(find_collective("all_gather"), 1024, 4);
  const auto calls =
      plan_mpi_calls(find_collective("all_gather"), Placement::out_of_place, s, 0, 4);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].count, 256);
  EXPECT_EQ(calls[0].block_stride, 256u);
  const auto rs = plan_mpi_calls(find_collective("reduce_scatter"), Placement::in_place,
                                 shape(find_collective("reduce_scatter"), 1024, 4), 0, 4);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].kind, MpiCallKind::reduce_scatter_block);
}

TEST(MpiCallPlan, MaxCountOptionIsCheckedAndNamed) {
  RunOptions options;
  EXPECT_EQ(mpi_max_count(options), static_cast<std::uint64_t>(INT_MAX));
  options.extra = {{"mpi.max_count", "1000"}};
  EXPECT_EQ(mpi_max_count(options), 1000u);
  for (const char* bad : {"0", "-3", "x", "2147483648", ""}) {
    options.extra = {{"mpi.max_count", bad}};
    try {
      mpi_max_count(options);
      FAIL() << bad;
    } catch (const ConfigError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind(std::string("--opt mpi.max_count=") + bad + ": ", 0), 0u) << message;
      EXPECT_NE(message.find("expected a whole number from 1 to 2147483647"), std::string::npos)
          << message;
    }
  }
}

// ---- a simulated MPI: every rank's plan run together on host buffers ----------------------------

struct RankBuffers {
  std::vector<float> send;
  std::vector<float> recv;
};

// The MPI backend's buffers and fill (mpi_backend.mpi.cpp): in place, the input lives in the
// output, where the entry's MPI layout puts it.
RankBuffers filled(const Collective& collective, Placement placement, const CollectiveShape& s,
                   int rank, std::uint32_t seed) {
  const bool in_place = placement == Placement::in_place;
  const BufferLayout layout = buffer_layout(collective, collective.mpi_layout, placement, s, rank);
  RankBuffers b;
  b.send.assign(in_place ? 0 : s.send_count, 0.0f);
  b.recv.assign(std::max(s.recv_count, in_place ? s.send_count : 0), -1.0f);
  float* input = in_place ? b.recv.data() + layout.input_offset : b.send.data();
  for (std::uint64_t i = 0; i < layout.input_count; ++i) {
    input[i] = verify::input_value(rank, i, seed);
  }
  return b;
}

void run_together(std::vector<RankBuffers>& b, const std::vector<std::vector<MpiCall>>& plans) {
  const int n = static_cast<int>(b.size());
  for (std::size_t c = 0; c < plans[0].size(); ++c) {
    for (int r = 1; r < n; ++r) {
      const MpiCall& mine = plans[static_cast<std::size_t>(r)][c];
      ASSERT_EQ(mine.kind, plans[0][c].kind) << "call " << c << " of rank " << r;
      ASSERT_EQ(mine.count, plans[0][c].count) << "call " << c << " of rank " << r;
      ASSERT_EQ(mine.root, plans[0][c].root) << "call " << c << " of rank " << r;
    }
    const auto before = b;  // what every rank's buffers held when the call started
    auto input = [&](int r, const MpiCall& call) -> const float* {
      const auto& rb = before[static_cast<std::size_t>(r)];
      return (call.in_place || rb.send.empty() ? rb.recv.data() : rb.send.data());
    };
    const std::size_t len = static_cast<std::size_t>(plans[0][c].count);
    for (int q = 0; q < n; ++q) {
      const MpiCall& call = plans[static_cast<std::size_t>(q)][c];
      float* out = b[static_cast<std::size_t>(q)].recv.data();
      switch (call.kind) {
        case MpiCallKind::allreduce:
          for (std::size_t i = 0; i < len; ++i) {
            float sum = 0;
            for (int r = 0; r < n; ++r) {
              const MpiCall& theirs = plans[static_cast<std::size_t>(r)][c];
              sum +=
                  input(r, theirs)[(theirs.in_place ? theirs.recv_offset : theirs.send_offset) + i];
            }
            out[call.recv_offset + i] = sum;
          }
          break;
        case MpiCallKind::allgather:
          for (int r = 0; r < n; ++r) {
            const MpiCall& theirs = plans[static_cast<std::size_t>(r)][c];
            const float* data = theirs.in_place
                                    ? before[static_cast<std::size_t>(r)].recv.data() +
                                          theirs.recv_offset +
                                          static_cast<std::uint64_t>(r) * theirs.block_stride
                                    : input(r, theirs) + theirs.send_offset;
            std::copy(data, data + len,
                      out + call.recv_offset + static_cast<std::uint64_t>(r) * call.block_stride);
          }
          break;
        case MpiCallKind::reduce_scatter_block:
          for (std::size_t i = 0; i < len; ++i) {
            float sum = 0;
            for (int r = 0; r < n; ++r) {
              sum += input(
                  r, plans[static_cast<std::size_t>(r)][c])[static_cast<std::size_t>(q) * len + i];
            }
            out[i] = sum;
          }
          break;
        case MpiCallKind::reduce:
          if (q != call.root) break;
          for (std::size_t i = 0; i < len; ++i) {
            float sum = 0;
            for (int r = 0; r < n; ++r) {
              const MpiCall& theirs = plans[static_cast<std::size_t>(r)][c];
              const auto& rb = before[static_cast<std::size_t>(r)];
              const float* data = theirs.in_place ? rb.recv.data() + theirs.recv_offset
                                                  : input(r, MpiCall{}) + theirs.send_offset;
              sum += data[i];
            }
            out[call.recv_offset + i] = sum;
          }
          break;
        case MpiCallKind::bcast: {
          const float* data =
              before[static_cast<std::size_t>(call.root)].recv.data() + call.recv_offset;
          std::copy(data, data + len, out + call.recv_offset);
          break;
        }
        case MpiCallKind::alltoall:
          for (int r = 0; r < n; ++r) {
            const MpiCall& theirs = plans[static_cast<std::size_t>(r)][c];
            const float* data = input(r, theirs) + theirs.send_offset +
                                static_cast<std::uint64_t>(q) * theirs.block_stride;
            std::copy(data, data + len,
                      out + call.recv_offset + static_cast<std::uint64_t>(r) * call.block_stride);
          }
          break;
        case MpiCallKind::sendrecv: {
          const int previous = (q + n - 1) % n;
          const MpiCall& theirs = plans[static_cast<std::size_t>(previous)][c];
          const float* data = input(previous, theirs) + theirs.send_offset;
          std::copy(data, data + len, out + call.recv_offset);
          break;
        }
        case MpiCallKind::sendrecv_replace: {
          const int previous = (q + n - 1) % n;
          const float* data =
              before[static_cast<std::size_t>(previous)].recv.data() + call.recv_offset;
          std::copy(data, data + len, out + call.recv_offset);
          break;
        }
      }
    }
  }
}

// Pieces of 5 elements (max_count) make every collective take the piecewise path with blocks of
// 13..39 elements; the simulated result must be exactly verify::expected_output.
TEST(MpiCallPlan, PiecesGiveTheExactResultOfEveryCollectiveInBothPlacements) {
  constexpr int n = 3;
  constexpr std::uint32_t seed = 77;
  for (const Collective* entry : all_collectives()) {
    const Collective& collective = *entry;
    for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (!collective.mpi_layout.supports(placement)) continue;
      SCOPED_TRACE(collective.name() + " " + placement_name(placement));
      const CollectiveShape s = shape(collective, 117, n);
      std::vector<RankBuffers> buffers;
      std::vector<std::vector<MpiCall>> plans;
      for (int rank = 0; rank < n; ++rank) {
        buffers.push_back(filled(collective, placement, s, rank, seed));
        plans.push_back(plan_mpi_calls(collective, placement, s, rank, n, 5));
        EXPECT_GT(plans.back().size(), 1u);
        expect_counts_fit(plans.back());
      }
      run_together(buffers, plans);
      for (int rank = 0; rank < n; ++rank) {
        const BufferLayout layout =
            buffer_layout(collective, collective.mpi_layout, placement, s, rank);
        std::uint64_t wrong = 0;
        for (std::uint64_t i = 0; i < layout.output_count; ++i) {
          const float expected = verify::expected_output(collective.expected, rank, n, s.send_count,
                                                         s.recv_count, i, seed);
          if (buffers[static_cast<std::size_t>(rank)].recv[layout.output_offset + i] != expected) {
            ++wrong;
          }
        }
        EXPECT_EQ(wrong, 0u) << "rank " << rank;
      }
    }
  }
}

}  // namespace
}  // namespace fabcheck
