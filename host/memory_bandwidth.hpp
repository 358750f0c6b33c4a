// Host memory bandwidth as STREAM measures it (triad a = b + s*c, 24 bytes an element, best of a
// few runs): threads pinned to one NUMA node's CPUs on memory bound to a node, so each node's own
// bandwidth, each cross-node path and the whole machine's can be told apart.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kHostMemBwProbe = "host.mem_bw";
// The figure judge_memory_bandwidth compares across a host's NUMA nodes.
inline constexpr const char* kNumaTriadMetric = "triad_bw";

struct TriadRun {
  std::vector<int> cpus;            // one thread pinned to each
  int memory_node = -1;             // bind the arrays here; -1: where each thread touches first
  std::size_t bytes_per_array = 0;  // rounded down to whole doubles per thread
  int repeats = 5;
};

// The default bytes per STREAM array for a node with `available_bytes` of memory available: 1/32
// of it, rounded down to a power of two, between 64 MiB and 1 GiB. A power of two, so that the
// same node measures at the same size from run to run (its figures are compared by size: a
// baseline, a history) while what is available moves by a few percent.
std::size_t default_stream_array_bytes(double available_bytes);

// GB/s (1e9 bytes/s) of the best repeat; throws std::runtime_error when memory cannot be had.
double stream_triad_gbps(const TriadRun& run);

// The NUMA nodes of this machine and their CPUs (from sysfs; one node 0 with every CPU when the
// kernel exposes none).
std::map<int, std::vector<int>> numa_nodes_and_cpus();

// WARN for a NUMA node whose triad bandwidth is more than 20% below the median of its host's nodes
// (a DIMM missing, a memory channel down, memory in a slow mode).
std::vector<Finding> judge_memory_bandwidth(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
