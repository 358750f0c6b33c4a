// What an NCCL log proves about the transports a job used, and the findings: against expectations
// when given, else against what the log and the node show NCCL should have used.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// What the user or the profile says; an unset field is inferred from evidence.
struct NcclTransportExpectations {
  std::string network;      // "IB", "Socket", "any" (case-insensitive); "" = from evidence
  std::optional<bool> gdr;  // NET/IB connections must (true) use GPUDirect RDMA
  std::optional<bool> intra_node_p2p;  // GPUs of one node must (true) talk over P2P
  // Where each value came from, for messages ("--expect-network", "profile h100.toml:14").
  std::string given_by = "given";
};

// Counts of connections (Channel lines) by transport.
struct NcclTransportSummary {
  std::size_t connections = 0;
  std::size_t net_ib = 0;
  std::size_t net_ib_gdr = 0;
  std::size_t net_socket = 0;
  std::size_t inter_node_socket = 0;  // NET/Socket between ranks not known to share a host
  std::size_t net_other = 0;
  std::size_t p2p = 0;
  std::size_t shm = 0;
  std::size_t intra_node_non_p2p = 0;  // SHM, or NET between two ranks of one host
  // ...of which on a host where other GPUs did talk over P2P (so P2P works there).
  std::size_t intra_node_non_p2p_where_p2p = 0;
  std::vector<std::string> networks;  // distinct "Using network" values
  std::vector<std::string> devices;   // distinct NET devices NCCL listed
  std::vector<std::string> hosts;     // distinct hosts that logged
  bool multi_node = false;            // a communicator spans several nodes
  bool has_transport_info() const { return connections > 0 || !networks.empty(); }
};

NcclTransportSummary summarise_nccl_transports(const NcclLog& log);

// What the log shows beyond the counts, as quoted lines ("file:line: text", several joined by
// newlines), each empty when the log holds none.
struct NcclTransportFacts {
  NcclTransportSummary counts;
  std::size_t unrecognised = 0;
  std::string socket_lines;      // NET/Socket channels, "Using network Socket"
  std::string ib_searched;       // NCCL looked for IB: "NET/IB : No device found." or its list
  std::string network_env;       // "NCCL_IB_DISABLE set by environment to 1."
  std::string no_gdr_lines;      // NET/IB channels without GDRDMA
  std::string gdr_hca_disabled;  // "GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"
  std::string gdr_distance;      // "GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)"
  std::string non_p2p_lines;     // SHM or NET between GPUs of one node
  std::string p2p_beside;        // a P2P channel on a host that also had non-P2P ones
  std::string unrecognised_lines;
};

NcclTransportFacts nccl_transport_facts(const NcclLog& log);

// What the node itself shows (from fabric.ib_ports and fabric.topology in a run); unset when not
// measured.
struct NcclNodeEvidence {
  std::optional<int> active_rdma_ports;
  std::string ports_evidence;              // "node-a: 8 of 8 RDMA ports active"
  std::optional<bool> gpu_hca_share_path;  // some GPU shares a PCIe switch or NUMA node with a HCA
  std::string placement_evidence;          // "0000:18:00.0 and mlx5_0 share a PCIe switch"
};

// True when the ranks of `c` are known to be on one host (from comm lines and the hosts that logged
// each rank's lines, or a communicator with nNodes 1).
bool connection_is_intra_node(const NcclLog& log, const NcclConnection& c);

// Findings for `probe`, subject `subject`, each saying what its expectation was inferred from:
//  - inter-node NET/Socket: FAIL where IB is expected, or (no expectation) where the node has
//  active
//    RDMA ports or NCCL looked for IB devices, else WARN; none with network "Socket" or "any";
//  - NET/IB without GDRDMA: FAIL where GDR is expected; WARN (no expectation) where a GPU shares a
//    PCIe switch or NUMA node with a HCA, or NCCL said GDR is disabled for the HCA;
//  - SHM or NET inside one node: FAIL where P2P is expected; WARN (no expectation) where other GPUs
//    of that node talk over P2P;
//  - ERROR when the log holds no transport lines; WARN for unreadable Channel lines;
//  - otherwise one PASS summarising what was used.
std::vector<Finding> judge_nccl_transport_facts(const NcclTransportFacts& facts,
                                                const NcclTransportExpectations& expectations,
                                                const NcclNodeEvidence& node,
                                                const std::string& probe,
                                                const std::string& subject);

std::vector<Finding> judge_nccl_transports(const NcclLog& log,
                                           const NcclTransportExpectations& expectations,
                                           const std::string& probe, const std::string& subject,
                                           const NcclNodeEvidence& node = {});

// The counts as measurements of `probe` (socket_channels, inter_node_socket_channels, ib_channels,
// gdr_channels, ib_channels_without_gdr, p2p_channels, shm_channels, intra_node_non_p2p_channels,
// unrecognised_lines), subject `subject`; every record carries the facts' lines as params, so the
// run's judge can rebuild the facts from them.
std::vector<Measurement> nccl_transport_measurements(const NcclLog& log, const std::string& probe,
                                                     const std::string& subject);

// The facts back from one group of those measurements (one probe subject, one host).
NcclTransportFacts nccl_transport_facts_from(const std::vector<const Measurement*>& group);

// One human-readable paragraph: network, devices, counts by transport.
std::string describe_nccl_transports(const NcclTransportSummary& summary);

}  // namespace fabcheck
