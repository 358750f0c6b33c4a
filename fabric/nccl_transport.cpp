// What an NCCL log proves about the transports a job used, and the findings: against expectations
// when given, else against what the log and the node show NCCL should have used.
#include "fabric/nccl_transport.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>

namespace fabcheck {

namespace {

bool iequals(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

void add_distinct(std::vector<std::string>& list, const std::string& value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) {
    list.push_back(value);
  }
}

// rank -> host where every line naming the rank agrees; "" marks a rank seen on several hosts.
std::map<int, std::string> hosts_by_rank(const NcclLog& log) {
  std::map<int, std::string> hosts;
  auto note = [&hosts](int rank, const std::string& host) {
    if (rank < 0 || host.empty()) return;
    auto [it, inserted] = hosts.emplace(rank, host);
    if (!inserted && it->second != host) it->second.clear();
  };
  for (const auto& comm : log.comm_ranks) note(comm.rank, comm.host);
  for (const auto& c : log.connections) note(c.logging_rank(), c.host);
  return hosts;
}

bool single_node_job(const NcclLog& log) {
  if (log.comm_ranks.empty()) return false;
  return std::all_of(log.comm_ranks.begin(), log.comm_ranks.end(),
                     [](const NcclCommRank& comm) { return comm.nnodes == 1; });
}

bool intra_node(const NcclConnection& c, const std::map<int, std::string>& hosts, bool one_node) {
  if (one_node) return true;
  auto from = hosts.find(c.from_rank);
  auto to = hosts.find(c.to_rank);
  return from != hosts.end() && to != hosts.end() && !from->second.empty() &&
         from->second == to->second;
}

Finding base_finding(Severity severity, const std::string& probe, const std::string& subject) {
  Finding finding;
  finding.severity = severity;
  finding.probe = probe;
  finding.subject = subject;
  finding.unit = "count";
  return finding;
}

constexpr std::size_t kEvidenceLines = 3;

// Up to kEvidenceLines quoted lines, one a line.
class QuotedLines {
 public:
  void add(const NcclLogSource& source) {
    if (count_++ >= kEvidenceLines) return;
    text_ += (text_.empty() ? "" : "\n") + source.describe();
  }
  const std::string& text() const { return text_; }

 private:
  std::size_t count_ = 0;
  std::string text_;
};

std::string first_line(const std::string& lines) { return lines.substr(0, lines.find('\n')); }

// The first of `lines` holding `marker` (a channel line among "Using network" lines), else the
// first line.
std::string first_line_with(const std::string& lines, const std::string& marker) {
  std::size_t start = 0;
  while (start < lines.size()) {
    std::size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    const std::string line = lines.substr(start, end - start);
    if (line.find(marker) != std::string::npos) return line;
    start = end + 1;
  }
  return first_line(lines);
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) {
    if (!part.empty()) out += (out.empty() ? "" : "\n") + part;
  }
  return out;
}

// The expectation's words when it was given, for messages.
std::string given(const NcclTransportExpectations& e) {
  return e.given_by.empty() ? std::string("given") : e.given_by;
}

// The parameter names the facts travel under in the measurements.
constexpr const char* kSocketLines = "socket_lines";
constexpr const char* kIbSearched = "ib_searched";
constexpr const char* kNetworkEnv = "network_env";
constexpr const char* kNoGdrLines = "no_gdr_lines";
constexpr const char* kGdrHcaDisabled = "gdr_hca_disabled";
constexpr const char* kGdrDistance = "gdr_distance";
constexpr const char* kNonP2pLines = "non_p2p_lines";
constexpr const char* kP2pBeside = "p2p_beside";
constexpr const char* kIntraWhereP2p = "intra_node_non_p2p_where_p2p";
constexpr const char* kMultiNode = "multi_node";

void judge_network(const NcclTransportFacts& f, const NcclTransportExpectations& e,
                   const NcclNodeEvidence& node, const std::string& probe,
                   const std::string& subject, std::vector<Finding>& findings) {
  const NcclTransportSummary& s = f.counts;
  const bool said_socket =
      std::any_of(s.networks.begin(), s.networks.end(),
                  [](const std::string& network) { return iequals(network, "Socket"); });
  if (iequals(e.network, "Socket")) {
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
  if (iequals(e.network, "any")) return;
  const bool expect_ib = iequals(e.network, "IB");
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
    const std::string line = first_line(f.ib_searched);
    const std::size_t at = line.find("NET/IB");
    inferred = "expected InfiniBand, inferred from NCCL's own search for IB devices: \"" +
               (at == std::string::npos ? line : line.substr(at)) + "\"";
    evidence = joined({first_line(f.ib_searched), evidence});
  } else {
    severity = Severity::warn;
    inferred = "no InfiniBand/RoCE in evidence (" +
               (f.network_env.empty() ? std::string("NCCL did not look for IB devices")
                                      : "set by environment: " + first_line(f.network_env)) +
               "); sockets carry a fraction of what an RDMA fabric does";
    if (!f.network_env.empty()) evidence = joined({first_line(f.network_env), evidence});
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
      evidence = joined({first_line(f.ib_searched), evidence});
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
  Severity severity = Severity::fail;
  std::string inferred;
  std::string evidence = f.no_gdr_lines;
  if (e.gdr == true) {
    inferred = "GPUDirect RDMA expected (" + given(e) + ")";
  } else if (node.gpu_hca_share_path.value_or(false)) {
    severity = Severity::warn;
    inferred = "expected GPUDirect RDMA, inferred from the placement: " + node.placement_evidence;
    evidence = joined({evidence, f.gdr_distance});
  } else if (!f.gdr_hca_disabled.empty()) {
    severity = Severity::warn;
    inferred =
        "expected GPUDirect RDMA, inferred from NCCL's report that it is disabled for the "
        "HCA (the peer-memory module or dma-buf support is missing): " +
        first_line(f.gdr_hca_disabled);
    evidence = joined({first_line(f.gdr_hca_disabled), evidence});
  } else {
    return;  // no sign GDR was possible here: NCCL's choice stands (the PASS line counts it)
  }
  Finding finding = base_finding(severity, probe, subject);
  finding.metric = "ib_channels_without_gdr";
  finding.observed = static_cast<double>(s.net_ib - s.net_ib_gdr);
  finding.expected = 0;
  finding.message = "GPUDirect RDMA not in effect: " + std::to_string(s.net_ib - s.net_ib_gdr) +
                    " of " + std::to_string(s.net_ib) + " NET/IB connections without GDRDMA; " +
                    inferred;
  finding.evidence = evidence;
  finding.source = e.gdr == true ? "expectation " + given(e) : "inferred: " + inferred;
  finding.remedy =
      "load nvidia-peermem (or use dma-buf), check that GPU and HCA share a PCIe switch "
      "(nvidia-smi topo -m), ACS disabled on the switch, NCCL_NET_GDR_LEVEL not lowered";
  findings.push_back(std::move(finding));
}

void judge_intra_node(const NcclTransportFacts& f, const NcclTransportExpectations& e,
                      const std::string& probe, const std::string& subject,
                      std::vector<Finding>& findings) {
  const NcclTransportSummary& s = f.counts;
  if (s.intra_node_non_p2p == 0 || e.intra_node_p2p == false) return;
  Severity severity = Severity::fail;
  std::size_t judged = s.intra_node_non_p2p;
  std::string inferred;
  std::string evidence = f.non_p2p_lines;
  if (e.intra_node_p2p == true) {
    inferred = "P2P expected (" + given(e) + ")";
  } else if (s.intra_node_non_p2p_where_p2p > 0) {
    severity = Severity::warn;
    judged = s.intra_node_non_p2p_where_p2p;
    inferred =
        "P2P/NVLink is available there, inferred from other GPUs of the same node talking "
        "over P2P: " +
        first_line(f.p2p_beside);
    evidence = joined({evidence, first_line(f.p2p_beside)});
  } else {
    return;
  }
  Finding finding = base_finding(severity, probe, subject);
  finding.metric = "intra_node_non_p2p_channels";
  finding.observed = static_cast<double>(judged);
  finding.expected = 0;
  finding.message = std::to_string(judged) +
                    " connections between GPUs of one node went over SHM or NET instead of "
                    "P2P/NVLink; " +
                    inferred;
  finding.evidence = evidence;
  finding.source = e.intra_node_p2p == true ? "expectation " + given(e) : "inferred: " + inferred;
  finding.remedy =
      "check NVLink/NVSwitch health (nvidia-smi nvlink -s, fabric manager running), "
      "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL not set, IOMMU/ACS blocking PCIe P2P";
  findings.push_back(std::move(finding));
}

}  // namespace

NcclTransportSummary summarise_nccl_transports(const NcclLog& log) {
  NcclTransportSummary summary;
  auto hosts = hosts_by_rank(log);
  bool one_node = single_node_job(log);
  std::set<std::string> p2p_hosts;
  for (const auto& c : log.connections) {
    if (c.transport == NcclTransport::p2p && !c.host.empty()) p2p_hosts.insert(c.host);
  }
  for (const auto& c : log.connections) {
    ++summary.connections;
    add_distinct(summary.hosts, c.host);
    const bool inside = intra_node(c, hosts, one_node);
    switch (c.transport) {
      case NcclTransport::net_ib:
        ++summary.net_ib;
        if (c.gdr) ++summary.net_ib_gdr;
        break;
      case NcclTransport::net_socket:
        ++summary.net_socket;
        if (!inside) ++summary.inter_node_socket;
        break;
      case NcclTransport::net_other:
        ++summary.net_other;
        break;
      case NcclTransport::p2p:
        ++summary.p2p;
        break;
      case NcclTransport::shm:
        ++summary.shm;
        break;
    }
    if (c.transport != NcclTransport::p2p && inside) {
      ++summary.intra_node_non_p2p;
      if (p2p_hosts.count(c.host) > 0) ++summary.intra_node_non_p2p_where_p2p;
    }
  }
  for (const auto& choice : log.networks) {
    add_distinct(summary.networks, choice.network);
    add_distinct(summary.hosts, choice.host);
  }
  for (const auto& list : log.net_devices) {
    for (const auto& device : list.devices) add_distinct(summary.devices, device);
  }
  summary.multi_node = std::any_of(log.comm_ranks.begin(), log.comm_ranks.end(),
                                   [](const NcclCommRank& comm) { return comm.nnodes > 1; }) ||
                       summary.inter_node_socket > 0 || summary.net_ib > 0;
  return summary;
}

NcclTransportFacts nccl_transport_facts(const NcclLog& log) {
  NcclTransportFacts facts;
  facts.counts = summarise_nccl_transports(log);
  facts.unrecognised = log.unrecognised;
  const auto hosts = hosts_by_rank(log);
  const bool one_node = single_node_job(log);
  std::set<std::string> non_p2p_hosts;
  QuotedLines socket, no_gdr, non_p2p, searched, env, hca, distance, unrecognised, beside;
  for (const auto& choice : log.networks) {
    if (iequals(choice.network, "Socket")) socket.add(choice.source);
  }
  for (const auto& c : log.connections) {
    if (c.transport == NcclTransport::net_socket) socket.add(c.source);
    if (c.transport == NcclTransport::net_ib && !c.gdr) no_gdr.add(c.source);
    if (c.transport != NcclTransport::p2p && intra_node(c, hosts, one_node)) {
      non_p2p.add(c.source);
      non_p2p_hosts.insert(c.host);
    }
  }
  for (const auto& c : log.connections) {
    if (c.transport == NcclTransport::p2p && non_p2p_hosts.count(c.host) > 0) beside.add(c.source);
  }
  for (const auto& source : log.ib_no_device) searched.add(source);
  for (const auto& list : log.net_devices) {
    if (list.transport == "IB") searched.add(list.source);
  }
  for (const auto& source : log.network_set_by_environment) env.add(source);
  for (const auto& source : log.gdr_disabled_for_hca) hca.add(source);
  for (const auto& source : log.gdr_disabled_by_distance) distance.add(source);
  for (const auto& source : log.unrecognised_examples) unrecognised.add(source);
  facts.socket_lines = socket.text();
  facts.no_gdr_lines = no_gdr.text();
  facts.non_p2p_lines = non_p2p.text();
  facts.ib_searched = searched.text();
  facts.network_env = env.text();
  facts.gdr_hca_disabled = hca.text();
  facts.gdr_distance = distance.text();
  facts.unrecognised_lines = unrecognised.text();
  facts.p2p_beside = beside.text();
  return facts;
}

bool connection_is_intra_node(const NcclLog& log, const NcclConnection& c) {
  return intra_node(c, hosts_by_rank(log), single_node_job(log));
}

std::string describe_nccl_transports(const NcclTransportSummary& s) {
  auto join = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out.empty() ? std::string("none logged") : out;
  };
  return "network " + join(s.networks) + "; devices " + join(s.devices) + "; " +
         std::to_string(s.connections) + " connections: " + std::to_string(s.net_ib) + " NET/IB (" +
         std::to_string(s.net_ib_gdr) + " with GDRDMA), " + std::to_string(s.net_socket) +
         " NET/Socket, " + std::to_string(s.net_other) + " other NET, " + std::to_string(s.p2p) +
         " P2P, " + std::to_string(s.shm) + " SHM";
}

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
  judge_intra_node(facts, expectations, probe, subject, findings);

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
      finding.message += "; NCCL left GDR off by distance: " + first_line(facts.gdr_distance);
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

std::vector<Measurement> nccl_transport_measurements(const NcclLog& log, const std::string& probe,
                                                     const std::string& subject) {
  const NcclTransportFacts f = nccl_transport_facts(log);
  const NcclTransportSummary& s = f.counts;
  auto join = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
    return out;
  };
  std::vector<Measurement> out;
  auto add = [&](const char* metric, std::size_t value, const std::string& message) {
    Measurement m;
    m.probe = probe;
    m.metric = metric;
    m.value = static_cast<double>(value);
    m.unit = "count";
    m.subject = subject;
    m.params["network"] = join(s.networks);
    m.params["devices"] = join(s.devices);
    m.params["hosts"] = join(s.hosts);
    m.params[kMultiNode] = s.multi_node ? "1" : "0";
    m.params[kIntraWhereP2p] = std::to_string(s.intra_node_non_p2p_where_p2p);
    const std::pair<const char*, const std::string*> lines[] = {
        {kSocketLines, &f.socket_lines},        {kIbSearched, &f.ib_searched},
        {kNetworkEnv, &f.network_env},          {kNoGdrLines, &f.no_gdr_lines},
        {kGdrHcaDisabled, &f.gdr_hca_disabled}, {kGdrDistance, &f.gdr_distance},
        {kNonP2pLines, &f.non_p2p_lines},       {kP2pBeside, &f.p2p_beside}};
    for (const auto& [key, text] : lines) {
      if (!text->empty()) m.params[key] = *text;
    }
    m.message = message;
    out.push_back(std::move(m));
  };
  add("socket_channels", s.net_socket, first_line_with(f.socket_lines, " via "));
  add("inter_node_socket_channels", s.inter_node_socket, first_line_with(f.socket_lines, " via "));
  add("ib_channels", s.net_ib, "");
  add("gdr_channels", s.net_ib_gdr, "");
  add("ib_channels_without_gdr", s.net_ib - s.net_ib_gdr, first_line(f.no_gdr_lines));
  add("p2p_channels", s.p2p, "");
  add("shm_channels", s.shm, "");
  add("intra_node_non_p2p_channels", s.intra_node_non_p2p, first_line(f.non_p2p_lines));
  add("unrecognised_lines", log.unrecognised, first_line(f.unrecognised_lines));
  return out;
}

NcclTransportFacts nccl_transport_facts_from(const std::vector<const Measurement*>& group) {
  NcclTransportFacts f;
  NcclTransportSummary& s = f.counts;
  for (const Measurement* m : group) {
    const auto count = static_cast<std::size_t>(m->value > 0 ? m->value : 0);
    if (m->metric == "socket_channels") {
      s.net_socket = count;
    } else if (m->metric == "inter_node_socket_channels") {
      s.inter_node_socket = count;
    } else if (m->metric == "ib_channels") {
      s.net_ib = count;
    } else if (m->metric == "gdr_channels") {
      s.net_ib_gdr = count;
    } else if (m->metric == "p2p_channels") {
      s.p2p = count;
    } else if (m->metric == "shm_channels") {
      s.shm = count;
    } else if (m->metric == "intra_node_non_p2p_channels") {
      s.intra_node_non_p2p = count;
    } else if (m->metric == "unrecognised_lines") {
      f.unrecognised = count;
      f.unrecognised_lines = m->message;
    }
  }
  if (group.empty()) return f;
  const Measurement& any = *group.front();
  auto split = [](const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      if (comma > start) items.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
    return items;
  };
  s.networks = split(param_of(any, "network"));
  s.devices = split(param_of(any, "devices"));
  s.hosts = split(param_of(any, "hosts"));
  s.multi_node = param_of(any, kMultiNode) == "1";
  s.intra_node_non_p2p_where_p2p =
      static_cast<std::size_t>(std::atol(param_of(any, kIntraWhereP2p).c_str()));
  // Counts that are not metrics of their own.
  s.connections = s.net_ib + s.net_socket + s.p2p + s.shm;
  f.socket_lines = param_of(any, kSocketLines);
  f.ib_searched = param_of(any, kIbSearched);
  f.network_env = param_of(any, kNetworkEnv);
  f.no_gdr_lines = param_of(any, kNoGdrLines);
  f.gdr_hca_disabled = param_of(any, kGdrHcaDisabled);
  f.gdr_distance = param_of(any, kGdrDistance);
  f.non_p2p_lines = param_of(any, kNonP2pLines);
  f.p2p_beside = param_of(any, kP2pBeside);
  return f;
}

}  // namespace fabcheck
