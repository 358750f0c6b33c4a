// The collective timing loop shared by every backend: size sweep, warm-up, timed samples combined
// across ranks (slowest rank per sample), algbw/busbw, verification, the nccl-tests-style table.
#pragma once

#include <cstdint>
#include <cstdio>
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
  Collective collective = Collective::all_reduce;
  std::vector<Placement> placements{Placement::out_of_place};
  std::vector<std::uint64_t> sizes;
  int warmup = 5;
  int iters = 20;
  // Operations timed together as one sample (1: each iteration is a sample).
  int ops_per_sample = 1;
};

// Runs the sweep on every rank; emits measurements (time_us, algbw, busbw, wrong_elements per size)
// and prints the table on the root to `console` (nullptr: no table).
std::vector<SweepRow> run_collective_sweep(CollectiveBackend& backend, const SweepConfig& config,
                                           World& world, MeasurementSink& sink,
                                           const std::string& probe_id, std::FILE* console);

// Table header and rows, nccl-tests style (size, count, type, redop, root, time, algbw, busbw,
// #wrong).
std::string sweep_table_header();
std::string sweep_table_row(const SweepRow& row, Collective collective,
                            const std::string& type_name);

}  // namespace fabcheck
