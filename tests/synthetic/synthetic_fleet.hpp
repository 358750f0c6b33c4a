// A synthetic sweep for tests and benchmarks: one run directory per node (8 GPUs, 8 NDR HCAs, 2
// NVMe), every kind of probe with a realistic size sweep, healthy figures with small noise, and
// faults injected at known places. Synthetic: written from the record formats in
// results/schema/README.md, not recorded on hardware.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fabcheck::synthetic {

enum class FaultKind {
  slow_gpu,            // one GPU's GEMM 12% behind its node peers
  downtrained_link,    // one GPU's PCIe link at x8 (max x16): its host<->device copies halved
  half_rate_port,      // one IB port at 200 Gb/s among 400s (and its RDMA rail with it)
  socket_fallback,     // NCCL on one node sent inter-node traffic over TCP sockets
  slow_node_pair,      // the path between two nodes at 60% (both fine with other partners)
  history_regression,  // one node's NVMe 22% slower than its own history, inside the fleet spread
};
const char* to_string(FaultKind kind);

// Where a finding about a fault may be: on `host`, about `subject` (both exact).
struct FaultPlace {
  std::string host;
  std::string subject;
};

struct Fault {
  FaultKind kind;
  std::string host;
  std::vector<FaultPlace> places;
  bool found_by_compare = false;  // only `fabcheck compare` against history can see it
  bool link = false;              // between two nodes (the slow pair): drains neither
};

// Node i measures RDMA to i+1 and i+n/2. The faults sit at sixteenths of the fleet (the slow
// pair's client at 2n/16 and its server n/2 further, slow GPU 4n/16, downtrained link 6n/16,
// half-rate port 8n/16, socket fallback 13n/16, history regression 15n/16), so that every fault
// has its own node and no fault node measures, or is measured by, another but the slow pair's two.
struct FleetSpec {
  std::size_t nodes = 32;  // with faults, at least 16 (write_fleet checks the placement)
  std::uint64_t seed = 7;
  bool faults = true;
  std::size_t collective_sizes = 25;  // 1 KiB to 16 GiB, x2
};

struct Fleet {
  std::vector<std::filesystem::path> run_dirs;
  std::vector<Fault> faults;  // empty for a night before (no fault but the old speeds)
  std::size_t measurements = 0;
  std::size_t bytes = 0;
};

std::string node_name(std::size_t index);  // "node00042"

// Writes one run directory per node into `dir` (which must not exist or be empty). Night 0 is
// tonight, with the faults; night k > 0 is k nights before: healthy, each node at its usual speed
// (the history-regression node at its old, faster one), for building a history.
Fleet write_fleet(const std::filesystem::path& dir, const FleetSpec& spec, int night = 0);

}  // namespace fabcheck::synthetic
