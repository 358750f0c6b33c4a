// fabric.nccl_transport's records: the facts of a log as measurements (counts as figures, quoted
// lines as params) and the facts back from them.
#include "fabric/nccl_transport_records.hpp"

#include <cstdlib>
#include <utility>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

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
  return first_quoted_line(lines);
}

// The parameter names the facts travel under in the measurements.
constexpr const char* kSocketLines = "socket_lines";
constexpr const char* kIbSearched = "ib_searched";
constexpr const char* kNetworkEnv = "network_env";
constexpr const char* kGdrEnv = "gdr_env";
constexpr const char* kP2pEnv = "p2p_env";
constexpr const char* kNoGdrLines = "no_gdr_lines";
constexpr const char* kGdrHcaDisabled = "gdr_hca_disabled";
constexpr const char* kGdrDistance = "gdr_distance";
constexpr const char* kNonP2pLines = "non_p2p_lines";
constexpr const char* kP2pBeside = "p2p_beside";
constexpr const char* kIntraWhereP2p = "intra_node_non_p2p_where_p2p";
constexpr const char* kMultiNode = "multi_node";

}  // namespace

std::vector<Measurement> nccl_transport_measurements(const NcclLog& log, const std::string& probe,
                                                     const std::string& subject) {
  const NcclTransportFacts f = nccl_transport_facts(log);
  const NcclTransportSummary& s = f.counts;
  std::vector<Measurement> out;
  auto add = [&](const char* metric, std::size_t value, const std::string& message) {
    Measurement m = make_measurement(probe, metric, static_cast<double>(value), "count", subject);
    m.params["network"] = text::join(s.networks, ",");
    m.params["devices"] = text::join(s.devices, ",");
    m.params["hosts"] = text::join(s.hosts, ",");
    // A std::string, not a const char*: GCC 12 sees a false overlap in that assignment here
    // (-Wrestrict, GCC bug 105651).
    m.params[kMultiNode] = std::string(s.multi_node ? "1" : "0");
    m.params[kIntraWhereP2p] = std::to_string(s.intra_node_non_p2p_where_p2p);
    const std::pair<const char*, const std::string*> lines[] = {
        {kSocketLines, &f.socket_lines},
        {kIbSearched, &f.ib_searched},
        {kNetworkEnv, &f.network_env},
        {kNoGdrLines, &f.no_gdr_lines},
        {kGdrHcaDisabled, &f.gdr_hca_disabled},
        {kGdrDistance, &f.gdr_distance},
        {kNonP2pLines, &f.non_p2p_lines},
        {kP2pBeside, &f.p2p_beside},
        {kGdrEnv, &f.gdr_env},
        {kP2pEnv, &f.p2p_env}};
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
  add("ib_channels_without_gdr", s.net_ib - s.net_ib_gdr, first_quoted_line(f.no_gdr_lines));
  add("p2p_channels", s.p2p, "");
  add("shm_channels", s.shm, "");
  add("intra_node_non_p2p_channels", s.intra_node_non_p2p, first_quoted_line(f.non_p2p_lines));
  add("unrecognised_lines", log.unrecognised, first_quoted_line(f.unrecognised_lines));
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
  f.gdr_env = param_of(any, kGdrEnv);
  f.p2p_env = param_of(any, kP2pEnv);
  f.no_gdr_lines = param_of(any, kNoGdrLines);
  f.gdr_hca_disabled = param_of(any, kGdrHcaDisabled);
  f.gdr_distance = param_of(any, kGdrDistance);
  f.non_p2p_lines = param_of(any, kNonP2pLines);
  f.p2p_beside = param_of(any, kP2pBeside);
  return f;
}

}  // namespace fabcheck
