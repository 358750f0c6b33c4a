// A collective as one table entry, like nccl-tests' testColl: its name, its buffers' shape, its bus
// factor, the value every output element must hold, its MPI calls, its NCCL call, where each
// backend keeps its input and output, and its place in the plans. Each collective fills one entry
// in a file of its own (all_reduce.cpp, ...); the engine, both backends and the verification read
// only the entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/coll/verification.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

enum class Placement { out_of_place, in_place };
const char* placement_name(Placement placement);  // "out", "in"
// "out-of-place", "in-place"; of a name placement_name gave ("" for any other name).
const char* placement_title(Placement placement);
const char* placement_title(const std::string& name);

// Buffer shape of one operation at a nominal size, following nccl-tests: `size_bytes` is the
// all-reduce/broadcast/sendrecv buffer, the all-gather output, the reduce-scatter input and the
// alltoall buffer of each rank. Sizes are rounded down to a whole number of elements per rank.
struct CollectiveShape {
  std::uint64_t size_bytes = 0;  // the size actually used, after rounding (0: too small to run)
  std::uint64_t count = 0;       // elements the table reports (nccl-tests' "count")
  std::uint64_t send_count = 0;  // elements each rank sends from its input buffer
  std::uint64_t recv_count = 0;  // elements each rank's output buffer holds
};

// Where a rank's input or output sits inside the one buffer of an in-place operation: at its
// start, or at the rank's block (rank x send_count for the input, rank x recv_count for the
// output; nccl-tests' offsets).
enum class InPlaceAt { start, rank_block };

// How one backend lays out a collective: the placements it runs it in and where a rank's input and
// output sit in its buffers (buffer_layout.hpp).
struct BackendLayout {
  bool out_of_place = true;
  bool in_place = true;
  InPlaceAt in_place_input = InPlaceAt::start;
  InPlaceAt in_place_output = InPlaceAt::start;
  // Only the root's input is written (the others' one buffer is their output, left poisoned so
  // that a broadcast that never arrived shows in every element).
  bool input_only_at_root = false;
  // Only the root's output is defined (and checked).
  bool output_only_at_root = false;

  bool supports(Placement placement) const {
    return placement == Placement::in_place ? in_place : out_of_place;
  }
};

struct MpiCall;  // mpi_call_plan.hpp

// What a collective's MPI plan is asked for: one operation of `shape` on rank `rank` of `nranks`,
// every call's count at most `max_count`.
struct MpiPlanRequest {
  Placement placement = Placement::out_of_place;
  CollectiveShape shape;
  int rank = 0;
  int nranks = 1;
  std::uint64_t max_count = 0;

  bool in_place() const { return placement == Placement::in_place; }
};

// One member's NCCL operation (nccl_call.hpp, CUDA builds only). The call returns its
// ncclResult_t as an int, so that this header needs no NCCL.
struct NcclCall;
using NcclCallFunction = int (*)(const NcclCall& call);

// The entry's NCCL call: the function in a CUDA build, nullptr without CUDA (where no NCCL backend
// runs), so an entry needs no #if of its own around the field.
#if defined(FABCHECK_HAVE_CUDA)
#define FABCHECK_NCCL_CALL(call) (&(call))
#else
#define FABCHECK_NCCL_CALL(call) (::fabcheck::NcclCallFunction{nullptr})
#endif

struct Collective {
  const char* id = "";           // the probe's, "coll.all_reduce"
  const char* description = "";  // the probe's one line
  // Element counts per rank for `elements` of the nominal size on `nranks` ranks (size_bytes is
  // left to collective_shape).
  CollectiveShape (*shape)(std::uint64_t elements, std::uint64_t nranks) = nullptr;
  // busbw = algbw x bus_factor(n), nccl-tests' formula (doc/PERFORMANCE.md there).
  double (*bus_factor)(double nranks) = nullptr;
  // The value every output element must hold; `reduced` is also what the table's redop says.
  verify::OutputRule expected{};
  // The rank a rooted collective sends from or reduces to; -1: none.
  int root = -1;
  // The MPI calls of one operation on one rank (pure data: mpi_call_plan.hpp).
  std::vector<MpiCall> (*mpi_calls)(const MpiPlanRequest& request) = nullptr;
  BackendLayout mpi_layout{};
  NcclCallFunction nccl_call = nullptr;  // FABCHECK_NCCL_CALL(the entry's call)
  BackendLayout nccl_layout{};
  BudgetPriority budget_priority = BudgetPriority::normal;
  std::vector<PlanPlace> plans{};

  // "all_reduce": the id without its family's "coll.".
  std::string name() const;
};

// c.bus_factor(n); 0 for the (n-1) forms on one rank, as in nccl-tests.
double bus_factor(const Collective& collective, int nranks);

// algbw in GB/s (1e9 bytes/s) for `size_bytes` moved in `seconds`.
double algbw_gbps(std::uint64_t size_bytes, double seconds);

CollectiveShape collective_shape(const Collective& collective, std::uint64_t size_bytes, int nranks,
                                 std::size_t element_size);

}  // namespace fabcheck
