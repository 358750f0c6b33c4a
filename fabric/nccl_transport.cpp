// What an NCCL log proves about the transports a job used, and the findings against expectations.
#include "fabric/nccl_transport.hpp"

#include <algorithm>
#include <cctype>
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

std::string evidence_lines(const std::vector<const NcclLogSource*>& sources) {
  std::string evidence;
  for (const auto* source : sources) {
    if (!evidence.empty()) evidence += "\n";
    evidence += source->describe();
  }
  return evidence;
}

constexpr std::size_t kEvidenceLines = 3;

}  // namespace

NcclTransportSummary summarise_nccl_transports(const NcclLog& log) {
  NcclTransportSummary summary;
  auto hosts = hosts_by_rank(log);
  bool one_node = single_node_job(log);
  for (const auto& c : log.connections) {
    ++summary.connections;
    add_distinct(summary.hosts, c.host);
    switch (c.transport) {
      case NcclTransport::net_ib:
        ++summary.net_ib;
        if (c.gdr) ++summary.net_ib_gdr;
        break;
      case NcclTransport::net_socket:
        ++summary.net_socket;
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
    if (c.transport != NcclTransport::p2p && intra_node(c, hosts, one_node)) {
      ++summary.intra_node_non_p2p;
    }
  }
  for (const auto& choice : log.networks) {
    add_distinct(summary.networks, choice.network);
    add_distinct(summary.hosts, choice.host);
  }
  for (const auto& list : log.net_devices) {
    for (const auto& device : list.devices) add_distinct(summary.devices, device);
  }
  return summary;
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

std::vector<Finding> judge_nccl_transports(const NcclLog& log,
                                           const NcclTransportExpectations& expectations,
                                           const std::string& probe, const std::string& subject) {
  std::vector<Finding> findings;
  NcclTransportSummary summary = summarise_nccl_transports(log);
  if (!summary.has_transport_info()) {
    Finding finding = base_finding(Severity::error, probe, subject);
    finding.metric = "connections";
    finding.message =
        log.nccl_lines == 0
            ? "no NCCL debug lines found (" + std::to_string(log.lines) + " lines read)"
            : "NCCL lines found but none names the network or a channel's transport";
    finding.remedy =
        "run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV and "
        "NCCL_DEBUG_FILE=<dir>/nccl.%h.%p.log";
    if (!log.unrecognised_examples.empty()) {
      std::vector<const NcclLogSource*> examples;
      for (const auto& example : log.unrecognised_examples) examples.push_back(&example);
      finding.evidence = evidence_lines(examples);
    }
    findings.push_back(std::move(finding));
    return findings;
  }
  auto hosts = hosts_by_rank(log);
  bool one_node = single_node_job(log);

  if (iequals(expectations.network, "IB")) {
    std::vector<const NcclLogSource*> evidence;
    for (const auto& choice : log.networks) {
      if (!iequals(choice.network, "IB") && evidence.size() < kEvidenceLines) {
        evidence.push_back(&choice.source);
      }
    }
    for (const auto& c : log.connections) {
      if (c.transport == NcclTransport::net_socket && evidence.size() < kEvidenceLines) {
        evidence.push_back(&c.source);
      }
    }
    if (!evidence.empty() || summary.net_socket > 0) {
      Finding finding = base_finding(Severity::fail, probe, subject);
      finding.metric = "socket_channels";
      finding.observed = static_cast<double>(summary.net_socket);
      finding.expected = 0;
      finding.message = "NCCL fell back to TCP sockets where InfiniBand is expected (" +
                        std::to_string(summary.net_socket) + " of " +
                        std::to_string(summary.connections) + " connections over NET/Socket)";
      if (!log.ib_no_device.empty()) {
        finding.message += "; NCCL reported \"NET/IB : No device found.\"";
        evidence.insert(evidence.begin(), &log.ib_no_device.front());
      }
      finding.evidence = evidence_lines(evidence);
      finding.remedy =
          "likely causes: no IB device visible to the job (check ibv_devices, "
          "/sys/class/infiniband), the IB driver (mlx5_ib, ib_uverbs) not loaded, NCCL_IB_HCA "
          "naming a device that does not exist, NCCL_IB_DISABLE=1 or NCCL_NET=Socket set; "
          "set NCCL_NET=IB to make NCCL fail instead of falling back";
      findings.push_back(std::move(finding));
    }
  } else if (iequals(expectations.network, "Socket")) {
    std::size_t not_socket = summary.net_ib + summary.net_other;
    if (not_socket > 0) {
      Finding finding = base_finding(Severity::warn, probe, subject);
      finding.metric = "ib_channels";
      finding.observed = static_cast<double>(not_socket);
      finding.message = std::to_string(not_socket) +
                        " connections used a network other than sockets where Socket is expected";
      findings.push_back(std::move(finding));
    }
  }

  if (expectations.gdr && summary.net_ib > summary.net_ib_gdr) {
    std::vector<const NcclLogSource*> evidence;
    for (const auto& c : log.connections) {
      if (c.transport == NcclTransport::net_ib && !c.gdr && evidence.size() < kEvidenceLines) {
        evidence.push_back(&c.source);
      }
    }
    Finding finding = base_finding(Severity::fail, probe, subject);
    finding.metric = "ib_channels_without_gdr";
    finding.observed = static_cast<double>(summary.net_ib - summary.net_ib_gdr);
    finding.expected = 0;
    finding.message =
        "GPUDirect RDMA not in effect: " + std::to_string(summary.net_ib - summary.net_ib_gdr) +
        " of " + std::to_string(summary.net_ib) + " NET/IB connections without GDRDMA";
    finding.evidence = evidence_lines(evidence);
    finding.remedy =
        "load nvidia-peermem (or use dma-buf), check that GPU and HCA share a PCIe switch "
        "(nvidia-smi topo -m), ACS disabled on the switch, NCCL_NET_GDR_LEVEL not lowered";
    findings.push_back(std::move(finding));
  }

  if (expectations.intra_node_p2p && summary.intra_node_non_p2p > 0) {
    std::vector<const NcclLogSource*> evidence;
    for (const auto& c : log.connections) {
      if (c.transport != NcclTransport::p2p && intra_node(c, hosts, one_node) &&
          evidence.size() < kEvidenceLines) {
        evidence.push_back(&c.source);
      }
    }
    Finding finding = base_finding(Severity::fail, probe, subject);
    finding.metric = "intra_node_non_p2p_channels";
    finding.observed = static_cast<double>(summary.intra_node_non_p2p);
    finding.expected = 0;
    finding.message = std::to_string(summary.intra_node_non_p2p) +
                      " connections between GPUs of one node went over SHM or NET instead of "
                      "P2P/NVLink";
    finding.evidence = evidence_lines(evidence);
    finding.remedy =
        "check NVLink/NVSwitch health (nvidia-smi nvlink -s, fabric manager running), "
        "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL not set, IOMMU/ACS blocking PCIe P2P";
    findings.push_back(std::move(finding));
  }

  if (log.unrecognised > 0) {
    std::vector<const NcclLogSource*> examples;
    for (const auto& example : log.unrecognised_examples) examples.push_back(&example);
    Finding finding = base_finding(Severity::warn, probe, subject);
    finding.metric = "unrecognised_lines";
    finding.observed = static_cast<double>(log.unrecognised);
    finding.message = std::to_string(log.unrecognised) +
                      " NCCL Channel lines could not be read (cut off or of an unknown form); "
                      "they were not counted";
    finding.evidence = evidence_lines(examples);
    findings.push_back(std::move(finding));
  }

  bool failed = std::any_of(findings.begin(), findings.end(),
                            [](const Finding& f) { return f.severity == Severity::fail; });
  if (!failed) {
    Finding finding = base_finding(Severity::pass, probe, subject);
    finding.metric = "connections";
    finding.observed = static_cast<double>(summary.connections);
    finding.message = describe_nccl_transports(summary);
    findings.push_back(std::move(finding));
  }
  return findings;
}

std::vector<Measurement> nccl_transport_measurements(const NcclLog& log, const std::string& probe,
                                                     const std::string& subject) {
  NcclTransportSummary s = summarise_nccl_transports(log);
  std::string first_net_line;
  for (const auto& c : log.connections) {
    if (c.transport != NcclTransport::p2p) {
      first_net_line = c.source.describe();
      break;
    }
  }
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
    m.message = message;
    out.push_back(std::move(m));
  };
  add("socket_channels", s.net_socket, s.net_socket > 0 ? first_net_line : "");
  add("ib_channels", s.net_ib, "");
  add("gdr_channels", s.net_ib_gdr, "");
  add("ib_channels_without_gdr", s.net_ib - s.net_ib_gdr, "");
  add("p2p_channels", s.p2p, "");
  add("shm_channels", s.shm, "");
  add("intra_node_non_p2p_channels", s.intra_node_non_p2p, "");
  add("unrecognised_lines", log.unrecognised,
      log.unrecognised_examples.empty() ? "" : log.unrecognised_examples.front().describe());
  return out;
}

}  // namespace fabcheck
