// coll.all_reduce: every rank's buffer summed element-wise, the sum on every rank
// (MPI_Allreduce, ncclAllReduce); bus factor 2(n-1)/n. One table entry (collective.hpp).
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#if defined(FABCHECK_HAVE_CUDA)
#include "bench/coll/nccl_call.hpp"
#endif

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
int all_reduce_on_nccl(const NcclCall& call) {
  return nccl_functions().all_reduce(call.input, call.output, call.shape.recv_count, call.datatype,
                                     call.op, call.comm, call.stream);
}
#endif

const Collective kAllReduce{
    .id = "coll.all_reduce",
    .description =
        "all_reduce bandwidth and latency over a size sweep, verified (MPI host memory "
        "or NCCL GPUs)",
    .shape =
        [](std::uint64_t elements, std::uint64_t) {
          return CollectiveShape{.count = elements, .send_count = elements, .recv_count = elements};
        },
    .bus_factor = [](double n) { return 2.0 * (n - 1) / n; },
    .expected = {.reduced = true},
    .mpi_calls =
        [](const MpiPlanRequest& request) {
          return mpi_elementwise_calls(MpiCallKind::allreduce, request.shape.recv_count,
                                       request.max_count, request.in_place(), 0);
        },
    .mpi_layout = {},
    .nccl_call = FABCHECK_NCCL_CALL(all_reduce_on_nccl),
    .nccl_layout = {},
    .budget_priority = BudgetPriority::high,
    // The gate measures the two collectives training leans on most; its verdict rests on the
    // all-reduce's bandwidth (required: never dropped by --budget, judged or no pass).
    .plans = {{.plan = "gate", .required = true},
              {.plan = "acceptance", .required = true},
              {"quick"}}};

}  // namespace

std::unique_ptr<Probe> make_all_reduce_probe(const NcclLogProof& /*proof*/) {
  return make_collective_probe(kAllReduce);
}

}  // namespace fabcheck
