// The collective timing loop shared by every backend: size sweep, warm-up, timed samples of several
// operations each with the ranks aligned per sample, combined across ranks (slowest rank per
// sample), algbw/busbw, verification, each size said as it begins (the console's table of its
// figures: sweep_table.hpp). Generic over the backend and the World (the whole job, a node's
// ranks, a pair of nodes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/coll/backend.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

struct SweepRow {
  CollectiveShape shape;
  Placement placement = Placement::out_of_place;
  SampleStats time_us;    // per operation, slowest rank per sample
  double algbw_gbps = 0;  // from the median time
  double busbw_gbps = 0;
  std::uint64_t wrong_total = 0;
  std::vector<std::uint64_t> wrong_by_rank;
};

struct SweepConfig {
  const Collective* collective = nullptr;  // the entry (collective.hpp)
  // The element type, and the reduction of a reducing collective (data_types.hpp): sizes are bytes,
  // so the count of each size follows the type.
  verify::Element element{};
  std::vector<Placement> placements{Placement::out_of_place};
  std::vector<std::uint64_t> sizes;
  int warmup = 5;  // untimed operations per size and placement (at least one is always run)
  int iters = 20;  // timed operations per size and placement
  // Operations timed together as one sample: iters / ops_per_sample samples (at least one).
  // 0: the backend's preferred_ops_per_sample().
  int ops_per_sample = 0;
  // Whether the root notes each placement asked for that the backend does not run (once a probe,
  // not again for each type and op it sweeps).
  bool note_unrun_placements = true;
  // Whether the root records each rank's arrival lag and own time per size (arrival_lag_us,
  // rank_time_us: collective_stragglers.hpp); node pairs, two nodes at a time, do not.
  bool record_arrivals = true;
};

// Why a figure of one size means nothing (and is emitted WAIVED with that reason), or "" when it
// means what it says: busbw where the bus factor is 0 (one rank), algbw and busbw of an in-place
// operation on one rank (input and output are the same buffer: nothing moves).
std::string meaningless_figure_reason(const Collective& collective, Placement placement, int nranks,
                                      const std::string& metric);

// Runs the sweep on every rank of `world` (the ranks of the backend's communicator); emits
// measurements (time_us, algbw, busbw, wrong_elements per size) and, on the root, a note of the
// backend, ranks and samples and of each size skipped. Prints nothing. A step that fails on one
// rank fails on every rank at once (RankFailure naming the rank, bench/core/rank_agreement.hpp),
// never a hang in the next collective.
std::vector<SweepRow> run_collective_sweep(CollectiveBackend& backend, const SweepConfig& config,
                                           World& world, MeasurementSink& sink,
                                           const std::string& probe_id);

// What a sweep costs before anything was measured, as run_collective_sweep spends it: per size and
// placement, the buffers filled twice and checked once, max(1, warmup) untimed operations,
// samples x ops_per_sample timed ones and one checked. An operation takes `latency_s` plus the
// bytes each rank moves (the size x the bus factor, at least half the size on one rank) at
// `busbw_gbps`; filling and checking touch the size three times at `memory_gbps`. The rates are
// assumed, not measured: conservative ones (assumed_sweep_cost) so that a budget planned with them
// holds.
struct SweepCostModel {
  double latency_s = 0;
  double busbw_gbps = 1;
  double memory_gbps = 1;
  int ops_per_sample = 1;  // the backend's preferred_ops_per_sample(), used when the config has 0
  // Making the backend once a probe (a communicator, its buffers); not part of the sweep itself.
  double setup_s = 0;
};

// The assumed rates of a backend: "mpi" (host memory, shared memory or TCP between ranks; every
// element filled and checked on the CPU) or "nccl" (GPU buffers over PCIe-class links, filled and
// checked by kernels).
SweepCostModel assumed_sweep_cost(const std::string& backend);
// Seconds a backend takes to split its communicator into sub-communicators once (assumed:
// MPI_Comm_split is milliseconds; ncclCommSplit connects anew): node pairs' rounds, the
// bisection's steps.
double assumed_split_seconds(const std::string& backend);

// The operations run_collective_sweep runs at one size and placement with `ops_per_sample`
// operations a sample: the warm-up (at least one), the timed samples (iters / ops_per_sample, at
// least one) and the check's one. In double: --iters and --warmup may each be as large as an int
// holds (their sum is not).
double step_operations(const SweepConfig& config, int ops_per_sample);

// Seconds run_collective_sweep takes for `config` on `nranks` ranks under `model`.
double estimated_sweep_seconds(const SweepConfig& config, int nranks, const SweepCostModel& model);

}  // namespace fabcheck
