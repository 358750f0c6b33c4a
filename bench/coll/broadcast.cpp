// coll.broadcast: the root's buffer copied to every rank (MPI_Bcast, ncclBroadcast); bus factor 1.
// One table entry (collective.hpp).
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#if defined(FABCHECK_HAVE_CUDA)
#include "bench/coll/nccl_call.hpp"
#endif

namespace fabcheck {
namespace {

constexpr int kRoot = 0;

#if defined(FABCHECK_HAVE_CUDA)
int broadcast_on_nccl(const NcclCall& call) {
  return nccl_functions().broadcast(call.input, call.output, call.shape.send_count, call.datatype,
                                    kRoot, call.comm, call.stream);
}
#endif

const Collective kBroadcast{
    .id = "coll.broadcast",
    .description =
        "broadcast bandwidth and latency over a size sweep, verified (MPI host memory "
        "or NCCL GPUs)",
    .shape =
        [](std::uint64_t elements, std::uint64_t) {
          return CollectiveShape{.count = elements, .send_count = elements, .recv_count = elements};
        },
    .bus_factor = [](double) { return 1.0; },
    .expected = {.source_shift = kRoot},
    .root = kRoot,
    .mpi_calls =
        [](const MpiPlanRequest& request) {
          return mpi_elementwise_calls(MpiCallKind::bcast, request.shape.recv_count,
                                       request.max_count, false, kRoot);
        },
    // MPI_Bcast has one buffer: it is in place by nature, and only the root's input is written.
    .mpi_layout = {.out_of_place = false, .input_only_at_root = true},
    .nccl_call = FABCHECK_NCCL_CALL(broadcast_on_nccl),
    .nccl_layout = {},
    .budget_priority = BudgetPriority::low,
    .plans = {{"acceptance"}, {"quick"}}};

}  // namespace

std::unique_ptr<Probe> make_broadcast_probe(const NcclLogProof& /*proof*/) {
  return make_collective_probe(kBroadcast);
}

}  // namespace fabcheck
