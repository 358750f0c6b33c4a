// MPI calls of one collective with counts that fit `int`: the entry's plan, from pieces that fit.
#include "bench/coll/mpi_call_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "bench/sys/config_error.hpp"

namespace fabcheck {

std::vector<MpiPiece> mpi_pieces(std::uint64_t total, std::uint64_t max_count) {
  std::vector<MpiPiece> pieces;
  for (std::uint64_t offset = 0; offset < total; offset += max_count) {
    pieces.push_back({offset, static_cast<int>(std::min(max_count, total - offset))});
  }
  return pieces;
}

namespace {

// One call per piece of `total` elements; each piece starts at the same offset in both buffers.
std::vector<MpiCall> piecewise_calls(MpiCallKind kind, std::uint64_t total, std::uint64_t max_count,
                                     bool in_place, int root, std::uint64_t block_stride) {
  std::vector<MpiCall> calls;
  for (const MpiPiece& piece : mpi_pieces(total, max_count)) {
    MpiCall call;
    call.kind = kind;
    call.in_place = in_place;
    call.send_offset = piece.offset;
    call.recv_offset = piece.offset;
    call.count = piece.count;
    call.root = root;
    call.block_stride = block_stride;
    calls.push_back(call);
  }
  return calls;
}

}  // namespace

std::vector<MpiCall> mpi_elementwise_calls(MpiCallKind kind, std::uint64_t total,
                                           std::uint64_t max_count, bool in_place, int root) {
  return piecewise_calls(kind, total, max_count, in_place, root, MpiCall{}.block_stride);
}

std::vector<MpiCall> mpi_block_calls(MpiCallKind kind, bool in_place, std::uint64_t block,
                                     std::uint64_t max_count) {
  return piecewise_calls(kind, block, max_count, in_place, MpiCall{}.root, block);
}

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

std::vector<MpiCall> plan_mpi_calls(const Collective& collective, Placement placement,
                                    const CollectiveShape& shape, int rank, int nranks,
                                    std::uint64_t max_count) {
  if (max_count == 0 || max_count > static_cast<std::uint64_t>(INT_MAX)) {
    throw std::invalid_argument("plan_mpi_calls: max_count must be in 1.." +
                                std::to_string(INT_MAX));
  }
  return collective.mpi_calls({placement, shape, rank, nranks, max_count});
}

}  // namespace fabcheck
