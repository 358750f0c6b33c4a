// The rules on NCCL's transports: sockets where IB is due, NET/IB without GPUDirect RDMA, SHM or
// NET between GPUs of one node; each finding says what its expectation was inferred from.
#include "fabric/nccl_transport_rules.hpp"

#include <algorithm>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

Finding base_finding(Severity severity, const std::string& probe, const std::string& subject) {
  Finding finding;
  finding.severity = severity;
  finding.probe = probe;
  finding.subject = subject;
  finding.unit = "count";
  return finding;
}

// What a quoted log line ("file:12: host:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment
// to 1.") says after "NCCL INFO ", in quotes, for a message.
std::string quoted_message(const std::string& lines) {
  const std::string line = first_quoted_line(lines);
  const std::size_t at = line.find("NCCL INFO ");
  return "\"" + (at == std::string::npos ? line : line.substr(at + 10)) + "\"";
}

// The expectation's words when it was given, for messages.
std::string given(const NcclTransportExpectations& e) {
  return e.given_by.empty() ? std::string("given") : e.given_by;
}

void judge_network(const NcclTransportFacts& f, const NcclTransportExpectations& e,
                   const NcclNodeEvidence& node, const std::string& probe,
                   const std::string& subject, std::vector<Finding>& findings) {
  const NcclTransportSummary& s = f.counts;
  const bool said_socket = std::any_of(
      s.networks.begin(), s.networks.end(),
      [](const std::string& network) { return text::equal_ignoring_case(network, "Socket"); });
  if (text::equal_ignoring_case(e.network, "Socket")) {
    const std::size_t not_socket = s.net_ib + s.net_other;
    if (not_socket > 0) {
      Finding finding = base_finding(Severity::warn, probe, subject);
      finding.metric = "ib_channels";
      finding.observed = static_cast<double>(not_socket);
      finding.message =
          std::to_string(not_socket) +
          " connections used a network other than sockets where Socket is expected (" + given(e) +
          ")";
      finding.source = "expectation " + given(e);
      findings.push_back(std::move(finding));
    }
    return;
  }
  if (text::equal_ignoring_case(e.network, "any")) return;
  const bool expect_ib = text::equal_ignoring_case(e.network, "IB");
  // Expected IB: any socket use is a failure. By evidence: inter-node socket use only (a one-node
  // job that reaches NET at all is the intra-node rule's business).
  const std::size_t judged_sockets = expect_ib ? s.net_socket : s.inter_node_socket;
  const bool socket_network = said_socket && (expect_ib || s.multi_node);
  if (judged_sockets == 0 && !socket_network) return;

  Severity severity = Severity::fail;
  std::string inferred;
  std::string evidence = f.socket_lines;
  if (expect_ib) {
    inferred = "InfiniBand expected (" + given(e) + ")";
  } else if (node.active_rdma_ports && *node.active_rdma_ports > 0) {
    inferred = "expected InfiniBand, inferred from the node's " +
               std::to_string(*node.active_rdma_ports) + " active RDMA port(s)" +
               (node.ports_evidence.empty() ? "" : " (" + node.ports_evidence + ")");
  } else if (!f.ib_searched.empty() && f.network_env.empty()) {
    const std::string line = first_quoted_line(f.ib_searched);
    const std::size_t at = line.find("NET/IB");
    inferred = "expected InfiniBand, inferred from NCCL's own search for IB devices: \"" +
               (at == std::string::npos ? line : line.substr(at)) + "\"";
    evidence = text::join_non_empty({first_quoted_line(f.ib_searched), evidence}, "\n");
  } else {
    severity = Severity::warn;
    inferred = "no InfiniBand/RoCE in evidence (" +
               (f.network_env.empty() ? std::string("NCCL did not look for IB devices")
                                      : "set by environment: " + first_quoted_line(f.network_env)) +
               "); sockets carry a fraction of what an RDMA fabric does";
    if (!f.network_env.empty())
      evidence = text::join_non_empty({first_quoted_line(f.network_env), evidence}, "\n");
  }
  Finding finding = base_finding(severity, probe, subject);
  finding.metric = expect_ib ? "socket_channels" : "inter_node_socket_channels";
  finding.observed = static_cast<double>(judged_sockets);
  finding.expected = 0;
  finding.message = "NCCL fell back to TCP sockets" +
                    std::string(expect_ib ? "" : " for inter-node traffic") + " (" +
                    std::to_string(judged_sockets) + " of " + std::to_string(s.connections) +
                    " connections over NET/Socket" +
                    (said_socket ? ", \"Using network Socket\"" : "") + "); " + inferred;
  if (!f.ib_searched.empty() && f.ib_searched.find("No device found") != std::string::npos) {
    if (expect_ib) finding.message += "; NCCL reported \"NET/IB : No device found.\"";
    if (evidence.find("No device found") == std::string::npos) {
      evidence = text::join_non_empty({first_quoted_line(f.ib_searched), evidence}, "\n");
    }
  }
  finding.evidence = evidence;
  finding.source = expect_ib ? "expectation " + given(e) : "inferred: " + inferred;
  finding.remedy =
      "likely causes: no IB device visible to the job (check ibv_devices, "
      "/sys/class/infiniband), the IB driver (mlx5_ib, ib_uverbs) not loaded, NCCL_IB_HCA "
      "naming a device that does not exist, NCCL_IB_DISABLE=1 or NCCL_NET=Socket set; "
      "set NCCL_NET=IB to make NCCL fail instead of falling back";
  findings.push_back(std::move(finding));
}

void judge_gdr(const NcclTransportFacts& f, const NcclTransportExpectations& e,
               const NcclNodeEvidence& node, const std::string& probe, const std::string& subject,
               std::vector<Finding>& findings) {
  const NcclTransportSummary& s = f.counts;
  if (s.net_ib <= s.net_ib_gdr || e.gdr == false) return;
  const std::size_t without = s.net_ib - s.net_ib_gdr;
  Severity severity = Severity::fail;
  std::string inferred;
  std::string evidence = f.no_gdr_lines;
  if (e.gdr == true) {
    inferred = "GPUDirect RDMA expected (" + given(e) + ")";
  } else if (node.gpu_hca_share_path.value_or(false)) {
    inferred = "GPUDirect RDMA expected, inferred from the topology: " + node.placement_evidence;
    evidence = text::join_non_empty({evidence, f.gdr_distance}, "\n");
  } else if (!f.gdr_hca_disabled.empty()) {
    severity = Severity::warn;
    inferred =
        "expected GPUDirect RDMA, inferred from NCCL's report that it is disabled for the "
        "HCA (the peer-memory module or dma-buf support is missing): " +
        first_quoted_line(f.gdr_hca_disabled);
    evidence = text::join_non_empty({first_quoted_line(f.gdr_hca_disabled), evidence}, "\n");
  } else if (s.net_ib_gdr == 0) {
    // No connection at all used GDR: on a GPU cluster with IB that is the peer-memory module
    // missing or GDR lowered by hand far more often than a design without it.
    severity = Severity::warn;
    inferred =
        "expected GPUDirect RDMA, inferred: no NET/IB connection of the job used it, which on a "
        "GPU cluster with InfiniBand is a misconfiguration far more often than the design (a "
        "site without GDR says so: nccl_gdr = false in the profile, or --no-expect-gdr)";
    evidence = text::join_non_empty(
        {first_quoted_line(f.gdr_env), evidence, first_quoted_line(f.gdr_distance)}, "\n");
  } else {
    return;  // some connections used GDR and nothing says all should: NCCL's choice stands
  }
  Finding finding = base_finding(severity, probe, subject);
  finding.metric = "ib_channels_without_gdr";
  finding.observed = static_cast<double>(without);
  finding.expected = 0;
  finding.message = "GPUDirect RDMA not in effect: " + std::to_string(without) + " of " +
                    std::to_string(s.net_ib) + " NET/IB connections without GDRDMA; " + inferred;
  if (!f.gdr_env.empty()) finding.message += "; NCCL read " + quoted_message(f.gdr_env);
  finding.evidence = evidence;
  finding.source = e.gdr == true ? "expectation " + given(e) : "inferred: " + inferred;
  finding.remedy =
      "likely causes, most likely first: the peer-memory module not loaded or dma-buf "
      "unavailable (confirm: lsmod | grep nvidia_peermem; NCCL_DEBUG=INFO shows \"GPU Direct "
      "RDMA Disabled for HCA\"; fix: modprobe nvidia-peermem); NCCL_NET_GDR_LEVEL set in the "
      "job's environment (confirm: env | grep NCCL_NET_GDR, the log's \"set by environment\" "
      "line); GPU and HCA far apart on PCIe, or ACS enabled on the switch between them "
      "(confirm: nvidia-smi topo -m shows PIX or PXB for each GPU and its HCA; lspci -vvv | grep "
      "ACSCtl)";
  findings.push_back(std::move(finding));
}

void judge_intra_node(const NcclTransportFacts& f, const NcclTransportExpectations& e,
                      const NcclNodeEvidence& node, const std::string& probe,
                      const std::string& subject, std::vector<Finding>& findings) {
  const NcclTransportSummary& s = f.counts;
  if (s.intra_node_non_p2p == 0 || e.intra_node_p2p == false) return;
  // Hosts where other GPU pairs did use P2P (so it works there), and hosts where none did.
  const std::size_t beside_p2p = s.intra_node_non_p2p_where_p2p;
  const std::size_t without_any_p2p = s.intra_node_non_p2p - beside_p2p;
  Severity severity = Severity::warn;
  std::vector<std::string> inferred;
  std::string evidence = f.non_p2p_lines;
  if (e.intra_node_p2p == true) {
    severity = Severity::fail;
    inferred.push_back("P2P expected (" + given(e) + ")");
  } else if (node.gpus_have_nvlink.value_or(false)) {
    severity = Severity::fail;
    inferred.push_back("P2P expected, inferred from the topology: " + node.nvlink_evidence);
  }
  if (e.intra_node_p2p != true && beside_p2p > 0) {
    inferred.push_back(
        "P2P/NVLink is available there, inferred from other GPUs of the same node talking over "
        "P2P: " +
        first_quoted_line(f.p2p_beside));
    evidence = text::join_non_empty({evidence, first_quoted_line(f.p2p_beside)}, "\n");
  }
  if (e.intra_node_p2p != true && without_any_p2p > 0) {
    inferred.push_back(std::to_string(without_any_p2p) +
                       " of them on a node where no GPU pair used P2P at all, which is what "
                       "NCCL_P2P_DISABLE=1 left in a job's environment or P2P refused under a "
                       "VM's or PCIe switch's ACS looks like; on NVLink systems it moves every "
                       "byte inside the node through host memory");
  }
  Finding finding = base_finding(severity, probe, subject);
  finding.metric = "intra_node_non_p2p_channels";
  finding.observed = static_cast<double>(s.intra_node_non_p2p);
  finding.expected = 0;
  finding.message = std::to_string(s.intra_node_non_p2p) +
                    " connections between GPUs of one node went over SHM or NET instead of "
                    "P2P/NVLink; " +
                    text::join(inferred, "; ");
  if (!f.p2p_env.empty()) {
    finding.message += "; NCCL read " + quoted_message(f.p2p_env);
    evidence = text::join_non_empty({first_quoted_line(f.p2p_env), evidence}, "\n");
  }
  finding.evidence = evidence;
  finding.source = e.intra_node_p2p == true ? "expectation " + given(e)
                                            : "inferred: " + text::join(inferred, "; ");
  finding.remedy =
      "likely causes: NCCL_P2P_DISABLE or NCCL_P2P_LEVEL set in the job's environment (confirm: "
      "env | grep NCCL_P2P, the log's \"set by environment\" line); NVLink down or the fabric "
      "manager not running (nvidia-smi nvlink -s, systemctl status nvidia-fabricmanager); PCIe "
      "P2P refused by IOMMU or ACS, as in a VM (nvidia-smi topo -p2p r, lspci -vvv | grep "
      "ACSCtl)";
  findings.push_back(std::move(finding));
}

}  // namespace

std::vector<Finding> judge_nccl_transport_facts(const NcclTransportFacts& facts,
                                                const NcclTransportExpectations& expectations,
                                                const NcclNodeEvidence& node,
                                                const std::string& probe,
                                                const std::string& subject) {
  std::vector<Finding> findings;
  const NcclTransportSummary& summary = facts.counts;
  if (!summary.has_transport_info()) {
    Finding finding = base_finding(Severity::error, probe, subject);
    finding.metric = "connections";
    finding.message = "NCCL lines found but none names the network or a channel's transport";
    finding.remedy =
        "run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV and "
        "NCCL_DEBUG_FILE=<dir>/nccl.%h.%p.log";
    finding.evidence = facts.unrecognised_lines;
    findings.push_back(std::move(finding));
    return findings;
  }
  judge_network(facts, expectations, node, probe, subject, findings);
  judge_gdr(facts, expectations, node, probe, subject, findings);
  judge_intra_node(facts, expectations, node, probe, subject, findings);

  if (facts.unrecognised > 0) {
    Finding finding = base_finding(Severity::warn, probe, subject);
    finding.metric = "unrecognised_lines";
    finding.observed = static_cast<double>(facts.unrecognised);
    finding.message = std::to_string(facts.unrecognised) +
                      " NCCL Channel lines could not be read (cut off or of an unknown form); "
                      "they were not counted";
    finding.evidence = facts.unrecognised_lines;
    findings.push_back(std::move(finding));
  }

  bool failed = std::any_of(findings.begin(), findings.end(),
                            [](const Finding& f) { return f.severity == Severity::fail; });
  if (!failed) {
    Finding finding = base_finding(Severity::pass, probe, subject);
    finding.metric = "connections";
    finding.observed = static_cast<double>(summary.connections);
    finding.message = describe_nccl_transports(summary);
    if (summary.net_ib > summary.net_ib_gdr && !facts.gdr_distance.empty()) {
      finding.message +=
          "; NCCL left GDR off by distance: " + first_quoted_line(facts.gdr_distance);
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

std::vector<Finding> judge_nccl_transports(const NcclLog& log,
                                           const NcclTransportExpectations& expectations,
                                           const std::string& probe, const std::string& subject,
                                           const NcclNodeEvidence& node) {
  if (log.nccl_lines == 0) {
    Finding finding = base_finding(Severity::error, probe, subject);
    finding.metric = "connections";
    finding.message = "no NCCL debug lines found (" + std::to_string(log.lines) + " lines read)";
    finding.remedy =
        "run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV and "
        "NCCL_DEBUG_FILE=<dir>/nccl.%h.%p.log";
    return {finding};
  }
  return judge_nccl_transport_facts(nccl_transport_facts(log), expectations, node, probe, subject);
}

}  // namespace fabcheck
