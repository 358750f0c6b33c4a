// How one collective with 64-bit element counts becomes MPI calls, whose counts are `int`: a plan
// of calls per rank, each count at most `max_count`. Pure data, so counts of 2^31 elements and more
// are tested without allocating them (tests/unit/coll/mpi_call_plan_test.cpp).
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/coll/collective.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

enum class MpiCallKind {
  allreduce,             // MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM)
  allgather,             // MPI_Allgather(send, count, MPI_FLOAT, recv, 1 block)
  reduce_scatter_block,  // MPI_Reduce_scatter_block(send, recv, count, MPI_FLOAT, MPI_SUM)
  reduce,                // MPI_Reduce(send, recv, count, MPI_FLOAT, MPI_SUM, root)
  bcast,                 // MPI_Bcast(recv, count, MPI_FLOAT, root)
  alltoall,              // MPI_Alltoall(send, 1 block, recv, 1 block)
  sendrecv,              // MPI_Sendrecv(send -> next, recv <- previous)
  sendrecv_replace,      // MPI_Sendrecv_replace(recv: -> next, <- previous)
};

const char* mpi_call_name(MpiCallKind kind);

// One MPI call. Offsets are in elements from the start of the backend's buffers: the input buffer
// (out of place: the send buffer; in place: the output buffer) and the output buffer.
struct MpiCall {
  MpiCallKind kind = MpiCallKind::allreduce;
  bool in_place = false;  // MPI_IN_PLACE as the send buffer
  std::uint64_t send_offset = 0;
  std::uint64_t recv_offset = 0;
  int count = 0;  // elements per call; allgather/alltoall: elements of each rank's block
  // allgather/alltoall: elements between consecutive ranks' blocks in the buffers. Equal to `count`
  // when the whole block goes in one call (MPI_FLOAT, `count` of them); larger when a block is
  // sent in pieces (one derived type of `count` floats with that extent).
  std::uint64_t block_stride = 0;
  int root = 0;  // reduce, bcast

  bool operator==(const MpiCall&) const = default;
};

// The calls rank `rank` of `nranks` makes for one operation of `shape` (collective.hpp): the
// entry's own plan (Collective::mpi_calls), every count at most `max_count` (INT_MAX: MPI's own
// limit; smaller only to exercise the pieces in tests). Every rank's plan has the same calls in
// the same order (kinds, counts, roots), as MPI requires.
std::vector<MpiCall> plan_mpi_calls(const Collective& collective, Placement placement,
                                    const CollectiveShape& shape, int rank, int nranks,
                                    std::uint64_t max_count = INT_MAX);

// The pieces the entries' plans are made of.
struct MpiPiece {
  std::uint64_t offset;
  int count;
};
// [0, total) in consecutive pieces of at most `max_count` elements.
std::vector<MpiPiece> mpi_pieces(std::uint64_t total, std::uint64_t max_count);
// An element-wise operation on [0, total) of both buffers: one call of `kind` a piece, MPI_IN_PLACE
// as the send buffer when `in_place`, to `root` where the call has one.
std::vector<MpiCall> mpi_elementwise_calls(MpiCallKind kind, std::uint64_t total,
                                           std::uint64_t max_count, bool in_place, int root);
// Each rank's block of `block` elements, whole or in pieces: calls of `kind` with that stride
// (allgather, alltoall).
std::vector<MpiCall> mpi_block_calls(MpiCallKind kind, bool in_place, std::uint64_t block,
                                     std::uint64_t max_count);

// --opt mpi.max_count=N (1..INT_MAX, default INT_MAX), read by the coll.* probes on MPI; a
// ConfigError names a bad value.
const OptionSpec& mpi_max_count_option();
std::uint64_t mpi_max_count(const RunOptions& options);

}  // namespace fabcheck
