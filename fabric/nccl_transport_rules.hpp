// The rules on NCCL's transports: the findings on a log's facts, against expectations when given,
// else against what the log and the node show NCCL should have used.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_facts.hpp"
#include "results/finding.hpp"

namespace fabcheck {

// What the user or the profile says; an unset field is inferred from evidence.
struct NcclTransportExpectations {
  std::string network;      // "IB", "Socket", "any" (case-insensitive); "" = from evidence
  std::optional<bool> gdr;  // NET/IB connections must (true) use GPUDirect RDMA
  std::optional<bool> intra_node_p2p;  // GPUs of one node must (true) talk over P2P
  // Where each value came from, for messages ("--expect-network", "profile h100.toml:14").
  std::string given_by = "given";
};

// What the node itself shows (from fabric.ib_ports and fabric.topology in a run); unset when not
// measured.
struct NcclNodeEvidence {
  std::optional<int> active_rdma_ports;
  std::string ports_evidence;              // "node-a: 8 of 8 RDMA ports active"
  std::optional<bool> gpu_hca_share_path;  // some GPU shares a PCIe switch or NUMA node with a HCA
  std::string placement_evidence;          // "0000:18:00.0 and mlx5_0 share a PCIe switch"
  std::optional<bool> gpus_have_nvlink;    // some GPU of the node has NVLinks (NVML's count)
  std::string nvlink_evidence;  // "gpu.health on node-a: GPU 0000:18:00.0 has 18 NVLinks"
};

// Findings for `probe`, subject `subject`, each saying what its expectation was inferred from:
//  - inter-node NET/Socket: FAIL where IB is expected, or (no expectation) where the node has
//  active
//    RDMA ports or NCCL looked for IB devices, else WARN; none with network "Socket" or "any";
//  - NET/IB without GDRDMA: FAIL where GDR is expected or a GPU shares a PCIe switch or NUMA node
//    with a HCA; WARN (no expectation) where NCCL said GDR is disabled for the HCA, or where no
//    NET/IB connection at all used GDR (on an IB GPU cluster more often a misconfiguration than
//    the design); none with GDR not expected (nccl_gdr = false, --no-expect-gdr);
//  - SHM or NET inside one node: FAIL where P2P is expected or the node's GPUs have NVLink; WARN
//    (no expectation) where other GPUs of that node talk over P2P, or where no GPU pair of the
//    node used P2P at all (NCCL_P2P_DISABLE left in the environment, P2P refused under ACS);
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

}  // namespace fabcheck
