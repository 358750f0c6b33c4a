// The logic of `fabcheck nccl-log FILE...` and `fabcheck inventory`: read, judge, print, exit code.
#include "fabric/commands.hpp"

#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/link_measurements.hpp"
#include "fabric/nccl_transport_judge.hpp"
#include "fabric/pcie_link.hpp"
#include "fabric/verbs_devices.hpp"
#include "results/evaluator.hpp"
#include "results/finding_text.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

namespace {

// A list on the console: "-" when it is empty.
std::string or_dash(std::string list) { return list.empty() ? std::string("-") : list; }

void print_connections(const NcclLog& log, std::FILE* out) {
  // (from, to, direction, via) -> channels
  std::map<std::tuple<int, int, std::string, std::string>, std::set<int>> pairs;
  for (const auto& c : log.connections) {
    pairs[{c.from_rank, c.to_rank, c.direction, c.via}].insert(c.channel);
  }
  std::fprintf(out, "  rank pairs:\n");
  for (const auto& [key, channels] : pairs) {
    const auto& [from, to, direction, via] = key;
    const std::string list =
        text::join(channels, ",", [](int channel) { return std::to_string(channel); });
    std::fprintf(out, "    %4d -> %-4d %-9s %-28s channels %s\n", from, to,
                 direction.empty() ? "" : ("[" + direction + "]").c_str(), via.c_str(),
                 list.c_str());
  }
}

}  // namespace

namespace {

void print_pcie_table(const std::vector<PcieLinkState>& links, std::FILE* out) {
  std::fprintf(out, "PCIe devices (%zu):\n", links.size());
  std::fprintf(out, "  %-13s %-5s %-26s %-13s %-10s %s\n", "BDF", "kind", "link", "upstream",
               "driver", "AER cor/nonfatal/fatal");
  for (const auto& link : links) {
    auto count = [](const std::optional<std::uint64_t>& value) {
      return value ? std::to_string(*value) : std::string("-");
    };
    std::string aer =
        count(link.aer_correctable) + "/" + count(link.aer_nonfatal) + "/" + count(link.aer_fatal);
    std::fprintf(out, "  %-13s %-5s %-26s %-13s %-10s %s\n", link.bdf.c_str(), to_string(link.kind),
                 link.has_link_state() ? link.describe().c_str() : "no link state",
                 link.upstream_port.empty() ? "root" : link.upstream_port.c_str(),
                 link.driver.empty() ? "-" : link.driver.c_str(), aer.c_str());
  }
}

void print_ib_table(const std::vector<IbPortState>& ports, std::FILE* out) {
  std::fprintf(out, "RDMA ports (%zu):\n", ports.size());
  for (const auto& port : ports) {
    std::fprintf(out, "  %-10s %-13s %-10s %-13s %-22s %s\n", port.subject().c_str(),
                 port.pci_bdf.c_str(), port.state ? port.state->name.c_str() : "?",
                 port.phys_state ? port.phys_state->name.c_str() : "?",
                 port.rate_text.empty() ? "?" : port.rate_text.c_str(), port.link_layer.c_str());
  }
}

}  // namespace

int nccl_log_command(const std::vector<std::string>& files, const NcclLogOptions& options,
                     std::FILE* out) {
  if (files.empty()) {
    std::fprintf(stderr, "fabcheck nccl-log: no log files given\n");
    return 2;
  }
  NcclLog log;
  try {
    log = read_nccl_logs(files);
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck nccl-log: %s\n", error.what());
    return 2;
  }
  NcclTransportSummary summary = summarise_nccl_transports(log);
  std::fprintf(out, "NCCL log analysis: %zu file(s), %zu lines, %zu NCCL lines\n", files.size(),
               log.lines, log.nccl_lines);
  std::fprintf(out, "  hosts        %s\n", or_dash(text::join(summary.hosts, ", ")).c_str());
  std::fprintf(out, "  network      %s\n", or_dash(text::join(summary.networks, ", ")).c_str());
  std::fprintf(out, "  devices      %s\n", or_dash(text::join(summary.devices, ", ")).c_str());
  std::fprintf(out,
               "  connections  %zu: NET/IB %zu (GDRDMA %zu), NET/Socket %zu, other NET %zu, "
               "P2P %zu, SHM %zu; unreadable Channel lines %zu\n",
               summary.connections, summary.net_ib, summary.net_ib_gdr, summary.net_socket,
               summary.net_other, summary.p2p, summary.shm, log.unrecognised);
  if (log.repeated > 0 || log.not_kept > 0 || log.long_lines > 0) {
    std::fprintf(out,
                 "  read         %zu record(s) repeating one already kept; %zu past the first %zu "
                 "connections (or %zu records of a kind) counted, not kept; %zu line(s) longer "
                 "than %zu KiB cut\n",
                 log.repeated, log.not_kept, NcclLog::kMaxConnections, NcclLog::kMaxRecords,
                 log.long_lines, NcclLog::kMaxLineBytes / 1024);
  }
  if (options.list_connections && !log.connections.empty()) print_connections(log, out);
  std::string subject = files.size() == 1 ? files.front() : std::to_string(files.size()) + " files";
  NcclNodeEvidence node;
  if (!options.sysfs_root.empty()) {
    node = nccl_node_evidence_from_sysfs(options.sysfs_root);
    std::fprintf(out, "  node         %s: %s%s%s\n", options.sysfs_root.c_str(),
                 node.active_rdma_ports ? node.ports_evidence.c_str() : "no RDMA port",
                 node.placement_evidence.empty() ? "" : "; ", node.placement_evidence.c_str());
  }
  auto findings = judge_nccl_transports(log, options.expectations, "nccl-log", subject, node);
  const NcclTransportExpectations& e = options.expectations;
  auto stated = [](const std::optional<bool>& value, const char* what) {
    return std::string(", ") + what +
           (!value   ? " from evidence"
            : *value ? " expected"
                     : " not expected");
  };
  std::fprintf(out, "findings (network %s%s%s):\n",
               e.network.empty() ? "from evidence" : ("expected " + e.network).c_str(),
               stated(e.gdr, "GDR").c_str(), stated(e.intra_node_p2p, "P2P inside a node").c_str());
  print_findings(findings, true, out);
  return print_verdict(findings, out);
}

PcieExpectation parse_pcie_expectation(const std::string& option, const std::string& value) {
  PcieExpectation expectation;
  std::string_view text = text::trim(value);
  std::size_t x = text.find_first_of("xX");
  std::string_view gen = text.substr(0, x);
  std::string_view width = x == std::string_view::npos ? std::string_view() : text.substr(x + 1);
  text::consume(gen, "Gen") || text::consume(gen, "gen");
  bool ok = !text.empty();
  if (!gen.empty()) {
    auto g = text::parse_small_int(gen);
    ok = ok && g && *g >= 1 && *g <= 6;
    if (g) expectation.gen = *g;
  }
  if (x != std::string_view::npos) {
    auto w = text::parse_small_int(width);
    ok = ok && w && *w >= 1 && *w <= 32;
    if (w) expectation.width = *w;
  }
  if (!ok) {
    throw ConfigError(option + ": expected GEN, xWIDTH or GENxWIDTH (e.g. 5x16), got \"" + value +
                      "\"");
  }
  return expectation;
}

int inventory_command(const InventoryOptions& options, std::FILE* out) {
  std::vector<SysfsProblem> problems;
  std::vector<PcieLinkState> links = read_pcie_links(options.sysfs_root, &problems);
  const std::size_t pcie_count = problems.size();
  std::vector<IbPortState> ports = read_ib_ports(options.sysfs_root, &problems);
  std::fprintf(out, "fabric inventory of %s\n", options.sysfs_root.c_str());
  print_pcie_table(links, out);
  print_ib_table(ports, out);
  if (options.sysfs_root == "/") {
    VerbsDevices verbs = list_verbs_devices();
    std::fprintf(out, "libibverbs: %s\n",
                 verbs.library_loaded ? (std::to_string(verbs.names.size()) + " device(s) " +
                                         or_dash(text::join(verbs.names, " ")))
                                            .c_str()
                                      : verbs.problem.c_str());
  }

  const std::vector<SysfsProblem> pcie_problems(problems.begin(), problems.begin() + pcie_count);
  const std::vector<SysfsProblem> port_problems(problems.begin() + pcie_count, problems.end());
  std::vector<Measurement> measurements =
      pcie_link_records(links, options.gpus_under_load, pcie_problems);
  auto port_records = ib_port_records(ports, port_problems);
  measurements.insert(measurements.end(), port_records.begin(), port_records.end());
  std::map<std::string, CounterSnapshot> before;
  for (const auto& port : ports) before[port.subject()] = port.counters;
  std::optional<std::map<std::string, CounterSnapshot>> after;
  double interval = 0;
  if (!options.counters_after_root.empty()) {
    after = read_ib_counters(options.counters_after_root);
  } else if (options.counter_interval_s > 0 && !ports.empty()) {
    std::this_thread::sleep_for(std::chrono::duration<double>(options.counter_interval_s));
    after = read_ib_counters(options.sysfs_root);
    interval = options.counter_interval_s;
  }
  if (after) {
    auto deltas = ib_counter_measurements(before, *after, interval);
    measurements.insert(measurements.end(), deltas.begin(), deltas.end());
  }

  std::fputs(options.node_report.c_str(), out);
  std::vector<Finding> findings = judge_fabric_measurements(measurements, options.expectations);
  findings.insert(findings.end(), options.node_findings.begin(), options.node_findings.end());
  if (options.profile) {
    for (auto& f : evaluate(measurements, *options.profile)) {
      if (f.severity == Severity::waived) continue;  // already reported by the fabric judge
      findings.push_back(std::move(f));
    }
  }
  std::fprintf(out, "findings:\n");
  print_findings(findings, true, out);
  return print_verdict(findings, out);
}

}  // namespace fabcheck
