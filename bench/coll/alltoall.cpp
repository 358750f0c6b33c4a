// coll.alltoall: block p of every rank's buffer sent to rank p, which keeps it as block (sender)
// (MPI_Alltoall, an ncclSend/ncclRecv per peer); bus factor (n-1)/n. One table entry
// (collective.hpp).
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#if defined(FABCHECK_HAVE_CUDA)
#include "bench/coll/nccl_call.hpp"
#endif

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
int alltoall_on_nccl(const NcclCall& call) {
  const std::uint64_t block = call.shape.send_count / static_cast<std::uint64_t>(call.nranks);
  const auto* input = static_cast<const std::byte*>(call.input);
  auto* output = static_cast<std::byte*>(call.output);
  ncclResult_t result = ncclSuccess;
  for (int peer = 0; peer < call.nranks && result == ncclSuccess; ++peer) {
    const std::uint64_t offset = static_cast<std::uint64_t>(peer) * block * call.element_bytes;
    result =
        nccl_functions().send(input + offset, block, call.datatype, peer, call.comm, call.stream);
    if (result == ncclSuccess) {
      result = nccl_functions().recv(output + offset, block, call.datatype, peer, call.comm,
                                     call.stream);
    }
  }
  return result;
}
#endif

const Collective kAlltoall{
    .id = "coll.alltoall",
    .description =
        "alltoall bandwidth and latency over a size sweep, verified (MPI host memory "
        "or NCCL GPUs)",
    // The nominal size is each rank's buffer: whole blocks, one per peer.
    .shape =
        [](std::uint64_t elements, std::uint64_t nranks) {
          const std::uint64_t per_peer = elements / nranks;
          return CollectiveShape{.count = per_peer * nranks,
                                 .send_count = per_peer * nranks,
                                 .recv_count = per_peer * nranks};
        },
    .bus_factor = [](double n) { return (n - 1) / n; },
    // Block s of rank r's output is block r of rank s's input.
    .expected = {.blocks = verify::OutputBlocks::per_rank,
                 .source_per_block = 1,
                 .index_at_rank_block = true},
    .mpi_calls =
        [](const MpiPlanRequest& request) {
          return mpi_block_calls(
              MpiCallKind::alltoall, request.in_place(),
              request.shape.recv_count / static_cast<std::uint64_t>(request.nranks),
              request.max_count);
        },
    .mpi_layout = {},
    .nccl_call = FABCHECK_NCCL_CALL(alltoall_on_nccl),
    // Point-to-point exchanges read and write the same buffer in place: not a defined operation.
    .nccl_layout = {.in_place = false},
    .budget_priority = BudgetPriority::low,
    .plans = {{"acceptance"}, {"quick"}}};

}  // namespace

std::unique_ptr<Probe> make_alltoall_probe(const NcclLogProof& /*proof*/) {
  return make_collective_probe(kAlltoall);
}

}  // namespace fabcheck
