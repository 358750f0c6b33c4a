// Host-pair matrices: figures measured between two hosts (coll.node_pairs) gathered into node x
// node tables, one per probe, metric, size and pass, for run.h5 and for anyone reading a run back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/measurement.hpp"

namespace fabcheck {

struct HostPairMatrix {
  std::string probe;
  std::string metric;
  std::string unit;
  std::uint64_t size_bytes = 0;
  std::string pass;                // params "pass" ("first", "confirm"), "" when absent
  std::vector<std::string> hosts;  // sorted
  std::vector<double> values;      // row-major hosts x hosts, symmetric; NaN where not measured
  // "coll.node_pairs:exchange_busbw:4194304:first": the dataset's name in run.h5.
  std::string name() const;
};

// True for a figure between two hosts: rank -1, host and peer set and different, subject
// "HOST_A--HOST_B" (the two names sorted), status ok.
bool is_host_pair_figure(const Measurement& measurement);

// The matrices the measurements hold, in order of first appearance.
std::vector<HostPairMatrix> host_pair_matrices(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
