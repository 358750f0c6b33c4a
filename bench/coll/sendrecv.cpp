// coll.sendrecv: every rank sends its buffer to the next rank and receives the previous one's, a
// ring (MPI_Sendrecv, MPI_Sendrecv_replace in place; ncclSend + ncclRecv); bus factor 1. One
// table entry (collective.hpp).
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#if defined(FABCHECK_HAVE_CUDA)
#include "bench/coll/nccl_call.hpp"
#endif

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
int sendrecv_on_nccl(const NcclCall& call) {
  const int n = call.nranks;
  const ncclResult_t sent = nccl_functions().send(call.input, call.shape.send_count, call.datatype,
                                                  (call.rank + 1) % n, call.comm, call.stream);
  if (sent != ncclSuccess) return sent;
  return nccl_functions().recv(call.output, call.shape.recv_count, call.datatype,
                               (call.rank + n - 1) % n, call.comm, call.stream);
}
#endif

const Collective kSendrecv{
    .id = "coll.sendrecv",
    .description =
        "sendrecv bandwidth and latency over a size sweep, verified (MPI host memory "
        "or NCCL GPUs)",
    .shape =
        [](std::uint64_t elements, std::uint64_t) {
          return CollectiveShape{.count = elements, .send_count = elements, .recv_count = elements};
        },
    .bus_factor = [](double) { return 1.0; },
    // Every rank holds the previous rank's input.
    .expected = {.source_per_rank = 1, .source_shift = -1},
    .mpi_calls =
        [](const MpiPlanRequest& request) {
          return mpi_elementwise_calls(
              request.in_place() ? MpiCallKind::sendrecv_replace : MpiCallKind::sendrecv,
              request.shape.recv_count, request.max_count, false, 0);
        },
    .mpi_layout = {},
    .nccl_call = FABCHECK_NCCL_CALL(sendrecv_on_nccl),
    // Point-to-point exchanges read and write the same buffer in place: not a defined operation.
    .nccl_layout = {.in_place = false},
    .budget_priority = BudgetPriority::low,
    .plans = {{"acceptance"}, {"quick"}}};

}  // namespace

std::unique_ptr<Probe> make_sendrecv_probe(const NcclLogProof& /*proof*/) {
  return make_collective_probe(kSendrecv);
}

}  // namespace fabcheck
