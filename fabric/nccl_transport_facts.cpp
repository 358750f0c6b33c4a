// The transports an NCCL log shows: connections counted by transport, and the lines quoted as
// evidence.
#include "fabric/nccl_transport_facts.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

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
  QuotedLines socket, no_gdr, non_p2p, searched, env, hca, distance, unrecognised, beside, gdr_env,
      p2p_env;
  for (const auto& choice : log.networks) {
    if (text::equal_ignoring_case(choice.network, "Socket")) socket.add(choice.source);
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
  for (const auto& source : log.gdr_set_by_environment) gdr_env.add(source);
  for (const auto& source : log.p2p_set_by_environment) p2p_env.add(source);
  for (const auto& source : log.gdr_disabled_for_hca) hca.add(source);
  for (const auto& source : log.gdr_disabled_by_distance) distance.add(source);
  for (const auto& source : log.unrecognised_examples) unrecognised.add(source);
  facts.socket_lines = socket.text();
  facts.no_gdr_lines = no_gdr.text();
  facts.non_p2p_lines = non_p2p.text();
  facts.ib_searched = searched.text();
  facts.network_env = env.text();
  facts.gdr_env = gdr_env.text();
  facts.p2p_env = p2p_env.text();
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
  auto listed = [](const std::vector<std::string>& items) {
    return items.empty() ? std::string("none logged") : text::join(items, ", ");
  };
  return "network " + listed(s.networks) + "; devices " + listed(s.devices) + "; " +
         std::to_string(s.connections) + " connections: " + std::to_string(s.net_ib) + " NET/IB (" +
         std::to_string(s.net_ib_gdr) + " with GDRDMA), " + std::to_string(s.net_socket) +
         " NET/Socket, " + std::to_string(s.net_other) + " other NET, " + std::to_string(s.p2p) +
         " P2P, " + std::to_string(s.shm) + " SHM";
}

std::string first_quoted_line(const std::string& lines) {
  return lines.substr(0, lines.find('\n'));
}

}  // namespace fabcheck
