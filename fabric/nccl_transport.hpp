// What an NCCL log proves about the transports a job used, and the findings against expectations.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

struct NcclTransportExpectations {
  std::string network = "any";  // "IB", "Socket" or "any" (case-insensitive)
  bool gdr = false;             // NET/IB connections must use GPUDirect RDMA
  bool intra_node_p2p = false;  // GPUs of one node must talk over P2P (NVLink / PCIe P2P)
};

// Counts of connections (Channel lines) by transport.
struct NcclTransportSummary {
  std::size_t connections = 0;
  std::size_t net_ib = 0;
  std::size_t net_ib_gdr = 0;
  std::size_t net_socket = 0;
  std::size_t net_other = 0;
  std::size_t p2p = 0;
  std::size_t shm = 0;
  std::size_t intra_node_non_p2p = 0;  // SHM, or NET between two ranks of one host
  std::vector<std::string> networks;   // distinct "Using network" values
  std::vector<std::string> devices;    // distinct NET devices NCCL listed
  std::vector<std::string> hosts;      // distinct hosts that logged
  bool has_transport_info() const { return connections > 0 || !networks.empty(); }
};

NcclTransportSummary summarise_nccl_transports(const NcclLog& log);

// True when the ranks of `c` are known to be on one host (from comm lines and the hosts that logged
// each rank's lines, or a communicator with nNodes 1).
bool connection_is_intra_node(const NcclLog& log, const NcclConnection& c);

// Findings for `probe` (e.g. "fabric.nccl_transport"), subject `subject` (the log or probe
// analysed): FAIL for NET/Socket (or "Using network Socket") where IB is expected, NET/IB without
// GDRDMA where GDR is expected, SHM or NET inside one node where P2P is expected; each with the log
// line as evidence. ERROR when the log holds no NCCL transport lines at all; WARN for unreadable
// Channel lines; otherwise one PASS summarising what was used.
std::vector<Finding> judge_nccl_transports(const NcclLog& log,
                                           const NcclTransportExpectations& expectations,
                                           const std::string& probe, const std::string& subject);

// The counts as measurements of `probe` (socket_channels, ib_channels, gdr_channels,
// ib_channels_without_gdr, p2p_channels, shm_channels, intra_node_non_p2p_channels,
// unrecognised_lines), subject `subject`; message holds the first telling log line.
std::vector<Measurement> nccl_transport_measurements(const NcclLog& log, const std::string& probe,
                                                     const std::string& subject);

// One human-readable paragraph: network, devices, counts by transport.
std::string describe_nccl_transports(const NcclTransportSummary& summary);

}  // namespace fabcheck
