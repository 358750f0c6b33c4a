// What an NCCL log proves about the transports a job used: counts of connections by transport and
// the lines that show why (sockets, IB searched for, GDR off, SHM between GPUs of one node).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"

namespace fabcheck {

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
  std::string gdr_env;           // "NCCL_NET_GDR_LEVEL set by environment to LOC."
  std::string p2p_env;           // "NCCL_P2P_DISABLE set by environment to 1.", NCCL_P2P_LEVEL
  std::string no_gdr_lines;      // NET/IB channels without GDRDMA
  std::string gdr_hca_disabled;  // "GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"
  std::string gdr_distance;      // "GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)"
  std::string non_p2p_lines;     // SHM or NET between GPUs of one node
  std::string p2p_beside;        // a P2P channel on a host that also had non-P2P ones
  std::string unrecognised_lines;
};

NcclTransportFacts nccl_transport_facts(const NcclLog& log);

// True when the ranks of `c` are known to be on one host (from comm lines and the hosts that logged
// each rank's lines, or a communicator with nNodes 1).
bool connection_is_intra_node(const NcclLog& log, const NcclConnection& c);

// One human-readable paragraph: network, devices, counts by transport.
std::string describe_nccl_transports(const NcclTransportSummary& summary);

// The first of a fact's quoted lines ("" when there is none).
std::string first_quoted_line(const std::string& lines);

}  // namespace fabcheck
