// MPI calls of one collective with counts that fit `int`: whole when they fit, else in pieces.
#include "bench/coll/mpi_call_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "bench/coll/verification.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

struct Piece {
  std::uint64_t offset;
  int count;
};

// [0, total) in consecutive pieces of at most `max_count` elements.
std::vector<Piece> pieces_of(std::uint64_t total, std::uint64_t max_count) {
  std::vector<Piece> pieces;
  for (std::uint64_t offset = 0; offset < total; offset += max_count) {
    pieces.push_back({offset, static_cast<int>(std::min(max_count, total - offset))});
  }
  return pieces;
}

// Each rank's block of `block` elements, whole or in pieces: calls of `kind` with that stride.
std::vector<MpiCall> blocks_in_pieces(MpiCallKind kind, bool in_place, std::uint64_t block,
                                      std::uint64_t max_count) {
  std::vector<MpiCall> calls;
  for (const Piece& piece : pieces_of(block, max_count)) {
    MpiCall call;
    call.kind = kind;
    call.in_place = in_place;
    call.send_offset = piece.offset;
    call.recv_offset = piece.offset;
    call.count = piece.count;
    call.block_stride = block;
    calls.push_back(call);
  }
  return calls;
}

}  // namespace

const char* mpi_call_name(MpiCallKind kind) {
  switch (kind) {
    case MpiCallKind::allreduce:
      return "MPI_Allreduce";
    case MpiCallKind::allgather:
      return "MPI_Allgather";
    case MpiCallKind::reduce_scatter_block:
      return "MPI_Reduce_scatter_block";
    case MpiCallKind::reduce:
      return "MPI_Reduce";
    case MpiCallKind::bcast:
      return "MPI_Bcast";
    case MpiCallKind::alltoall:
      return "MPI_Alltoall";
    case MpiCallKind::sendrecv:
      return "MPI_Sendrecv";
    case MpiCallKind::sendrecv_replace:
      return "MPI_Sendrecv_replace";
  }
  return "MPI_?";
}

const OptionSpec& mpi_max_count_option() {
  static const OptionSpec spec{.key = "mpi.max_count",
                               .type = OptionType::integer,
                               .default_value = std::to_string(INT_MAX),
                               .meaning =
                                   "most elements one MPI call carries (a larger operation "
                                   "goes in pieces); smaller only to exercise the pieces",
                               .min = 1,
                               .max = INT_MAX};
  return spec;
}

std::uint64_t mpi_max_count(const RunOptions& options) {
  return static_cast<std::uint64_t>(option_integer(options, mpi_max_count_option()));
}

std::vector<MpiCall> plan_mpi_calls(Collective collective, Placement placement,
                                    const CollectiveShape& shape, int rank, int nranks,
                                    std::uint64_t max_count) {
  if (max_count == 0 || max_count > static_cast<std::uint64_t>(INT_MAX)) {
    throw std::invalid_argument("plan_mpi_calls: max_count must be in 1.." +
                                std::to_string(INT_MAX));
  }
  const bool in_place = placement == Placement::in_place;
  const auto n = static_cast<std::uint64_t>(nranks);
  std::vector<MpiCall> calls;
  // Element-wise operations: consecutive pieces of the whole buffer.
  auto elementwise = [&](MpiCallKind kind, std::uint64_t total, int root) {
    for (const Piece& piece : pieces_of(total, max_count)) {
      MpiCall call;
      call.kind = kind;
      call.in_place = in_place && kind == MpiCallKind::allreduce;
      call.send_offset = piece.offset;
      call.recv_offset = piece.offset;
      call.count = piece.count;
      call.root = root;
      calls.push_back(call);
    }
  };
  switch (collective) {
    case Collective::all_reduce:
      elementwise(MpiCallKind::allreduce, shape.recv_count, 0);
      break;
    case Collective::broadcast:
      elementwise(MpiCallKind::bcast, shape.recv_count, verify::kRoot);
      break;
    case Collective::sendrecv:
      elementwise(in_place ? MpiCallKind::sendrecv_replace : MpiCallKind::sendrecv,
                  shape.recv_count, 0);
      break;
    case Collective::all_gather:
      calls = blocks_in_pieces(MpiCallKind::allgather, in_place, shape.send_count, max_count);
      break;
    case Collective::alltoall:
      calls = blocks_in_pieces(MpiCallKind::alltoall, in_place, shape.recv_count / n, max_count);
      break;
    case Collective::reduce_scatter: {
      const std::uint64_t block = shape.recv_count;
      if (block <= max_count) {
        MpiCall call;
        call.kind = MpiCallKind::reduce_scatter_block;
        call.in_place = in_place;
        call.count = static_cast<int>(block);
        calls.push_back(call);
        break;
      }
      // MPI_SUM is defined on predefined types only, so a block too large for one call is reduced
      // piece by piece to each rank in turn. In place, root q writes its result over block 0's
      // piece, which the reduction to root 0 (earlier in the same piece) has already consumed.
      for (const Piece& piece : pieces_of(block, max_count)) {
        for (int root = 0; root < nranks; ++root) {
          MpiCall call;
          call.kind = MpiCallKind::reduce;
          call.root = root;
          call.send_offset = static_cast<std::uint64_t>(root) * block + piece.offset;
          call.recv_offset = piece.offset;
          call.count = piece.count;
          call.in_place = in_place && rank == root && root == 0;
          calls.push_back(call);
        }
      }
      break;
    }
  }
  return calls;
}

}  // namespace fabcheck
