// coll.reduce_scatter: every rank's buffer summed element-wise, block r of the sum on rank r
// (MPI_Reduce_scatter_block, or MPI_Reduce per piece past `int` counts; ncclReduceScatter); bus
// factor (n-1)/n. One table entry (collective.hpp).
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#if defined(FABCHECK_HAVE_CUDA)
#include "bench/coll/nccl_call.hpp"
#endif

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
int reduce_scatter_on_nccl(const NcclCall& call) {
  return nccl_functions().reduce_scatter(call.input, call.output, call.shape.recv_count,
                                         call.datatype, call.op, call.comm, call.stream);
}
#endif

std::vector<MpiCall> reduce_scatter_on_mpi(const MpiPlanRequest& request) {
  const std::uint64_t block = request.shape.recv_count;
  if (block <= request.max_count) {
    MpiCall call;
    call.kind = MpiCallKind::reduce_scatter_block;
    call.in_place = request.in_place();
    call.count = static_cast<int>(block);
    return {call};
  }
  // MPI_SUM is defined on predefined types only, so a block too large for one call is reduced
  // piece by piece to each rank in turn. In place, root q writes its result over block 0's piece,
  // which the reduction to root 0 (earlier in the same piece) has already consumed.
  std::vector<MpiCall> calls;
  for (const MpiPiece& piece : mpi_pieces(block, request.max_count)) {
    for (int root = 0; root < request.nranks; ++root) {
      MpiCall call;
      call.kind = MpiCallKind::reduce;
      call.root = root;
      call.send_offset = static_cast<std::uint64_t>(root) * block + piece.offset;
      call.recv_offset = piece.offset;
      call.count = piece.count;
      call.in_place = request.in_place() && request.rank == root && root == 0;
      calls.push_back(call);
    }
  }
  return calls;
}

const Collective kReduceScatter{
    .id = "coll.reduce_scatter",
    .description =
        "reduce_scatter bandwidth and latency over a size sweep, verified (MPI host "
        "memory or NCCL GPUs)",
    // The nominal size is the input: one block of it per rank.
    .shape =
        [](std::uint64_t elements, std::uint64_t nranks) {
          const std::uint64_t per_rank = elements / nranks;
          return CollectiveShape{
              .count = per_rank * nranks, .send_count = per_rank * nranks, .recv_count = per_rank};
        },
    .bus_factor = [](double n) { return (n - 1) / n; },
    // Rank r holds the sum of block r.
    .expected = {.reduced = true, .index_at_rank_block = true},
    .mpi_calls = reduce_scatter_on_mpi,
    // MPI_IN_PLACE leaves the result at the start of the buffer; NCCL in place writes it over the
    // rank's own block (nccl-tests' offsets).
    .mpi_layout = {},
    .nccl_call = FABCHECK_NCCL_CALL(reduce_scatter_on_nccl),
    .nccl_layout = {.in_place_output = InPlaceAt::rank_block},
    .budget_priority = BudgetPriority::normal,
    .plans = {{"acceptance"}, {"quick"}}};

}  // namespace

std::unique_ptr<Probe> make_reduce_scatter_probe(const NcclLogProof& /*proof*/) {
  return make_collective_probe(kReduceScatter);
}

}  // namespace fabcheck
