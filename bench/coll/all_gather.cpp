// coll.all_gather: every rank's block gathered, in rank order, on every rank (MPI_Allgather,
// ncclAllGather); bus factor (n-1)/n. In place, a rank's input is its block of the output. One
// table entry (collective.hpp).
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#if defined(FABCHECK_HAVE_CUDA)
#include "bench/coll/nccl_call.hpp"
#endif

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
int all_gather_on_nccl(const NcclCall& call) {
  return nccl_functions().all_gather(call.input, call.output, call.shape.send_count, call.datatype,
                                     call.comm, call.stream);
}
#endif

const Collective kAllGather{
    .id = "coll.all_gather",
    .description =
        "all_gather bandwidth and latency over a size sweep, verified (MPI host memory "
        "or NCCL GPUs)",
    // The nominal size is the output: one block of it per rank.
    .shape =
        [](std::uint64_t elements, std::uint64_t nranks) {
          const std::uint64_t per_rank = elements / nranks;
          return CollectiveShape{
              .count = per_rank * nranks, .send_count = per_rank, .recv_count = per_rank * nranks};
        },
    .bus_factor = [](double n) { return (n - 1) / n; },
    // Block b of the output is rank b's input.
    .expected = {.blocks = verify::OutputBlocks::send_count, .source_per_block = 1},
    .mpi_calls =
        [](const MpiPlanRequest& request) {
          return mpi_block_calls(MpiCallKind::allgather, request.in_place(),
                                 request.shape.send_count, request.max_count);
        },
    .mpi_layout = {.in_place_input = InPlaceAt::rank_block},
    .nccl_call = FABCHECK_NCCL_CALL(all_gather_on_nccl),
    .nccl_layout = {.in_place_input = InPlaceAt::rank_block},
    .budget_priority = BudgetPriority::normal,
    // The gate measures the two collectives training leans on most.
    .plans = {{"gate"}, {"acceptance"}, {"quick"}}};

}  // namespace

std::unique_ptr<Probe> make_all_gather_probe(const NcclLogProof& /*proof*/) {
  return make_collective_probe(kAllGather);
}

}  // namespace fabcheck
