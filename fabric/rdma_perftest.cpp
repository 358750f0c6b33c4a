// The RDMA probes' frame: which hosts can take part, the rounds of node pairs, perftest servers
// and clients started per rail, and each client's result as a measurement.
#include "fabric/rdma_perftest.hpp"

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "bench/core/pair_schedule.hpp"
#include "bench/sys/text_scan.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/pcie_affinity.hpp"
#include "fabric/pcie_link.hpp"
#include "fabric/perftest_output.hpp"

namespace fabcheck {

const OptionSpec kRdmaPairs{
    .key = "rdma.pairs",
    .type = OptionType::choice,
    .default_value = "quick",
    .meaning = "node pairs: quick (a ring and shuffles) or all (every pair)",
    .choices = {"quick", "all"}};
const OptionSpec kRdmaUseCuda{.key = "rdma.use_cuda",
                              .type = OptionType::flag,
                              .default_value = "1",
                              .meaning =
                                  "bandwidth from the GPU nearest each HCA (GPUDirect RDMA) "
                                  "where there are GPUs"};

// What one host brings to the test: its active HCAs (sorted) and whether perftest is installed.
struct HostRdma {
  std::string host;
  std::vector<std::string> hcas;
  std::string problem;     // why this host cannot take part, "" when it can
  bool validates = false;  // its ib_write_bw offers --data_validation
};

void wire_write(WireWriter& out, const HostRdma& h) {
  wire_write(out, h.host);
  wire_write(out, h.hcas);
  wire_write(out, h.problem);
  wire_write(out, h.validates);
}
void wire_read(WireReader& in, HostRdma& h) {
  wire_read(in, h.host);
  wire_read(in, h.hcas);
  wire_read(in, h.problem);
  wire_read(in, h.validates);
}

namespace {

constexpr int kFirstTcpPort = 18515;
constexpr double kRunTimeoutS = 120;

// Rounds of (server, client) hosts; no host twice in a round.
using RdmaPlan = std::vector<std::vector<std::pair<HostRdma, HostRdma>>>;

std::string local_problem(const std::vector<IbPortState>& ports, PerftestTool tool) {
  bool any_active = false;
  for (const auto& port : ports) any_active = any_active || port.active();
  if (ports.empty()) return "no RDMA device";
  if (!any_active) return "no active RDMA port";
  if (find_in_path(perftest_program(tool)).empty()) {
    return std::string(perftest_program(tool)) + " not installed (perftest package)";
  }
  return "";
}

}  // namespace

RdmaPerftestProbe::RdmaPerftestProbe(ProbeInfo info, PerftestTool tool, std::uint64_t default_size)
    : Probe(std::move(info)), tool_(tool), default_size_(default_size) {}

Applicability RdmaPerftestProbe::applies(const World& world, const RunOptions& options) const {
  if (world.size() > 1) return Applicability::yes();  // hosts compare notes in run()
  std::string problem = local_problem(read_ib_ports(options.sysfs_root), tool_);
  return problem.empty() ? Applicability::yes() : Applicability::waived(problem);
}

void RdmaPerftestProbe::run(RunContext& context, MeasurementSink& sink) {
  World& world = context.world;
  HostRdma mine;
  if (world.local_rank() == 0) {
    auto ports = read_ib_ports(context.options.sysfs_root);
    mine.host = world.host();
    mine.problem = local_problem(ports, tool_);
    for (const auto& port : ports) {
      if (port.active()) mine.hcas.push_back(port.device);
    }
    if (mine.problem.empty() && tool_ == PerftestTool::write_bw) {
      ChildProcess help({perftest_program(tool_), "--help"}, {});
      mine.validates = perftest_offers_data_validation(help.wait(10).output);
    }
  }
  // Each host's first rank speaks for the host; the others send nothing.
  std::optional<HostRdma> speaker;
  if (world.local_rank() == 0) speaker = mine;
  const auto gathered = world.gather_values(speaker);
  RdmaPlan plan;
  if (world.is_root()) {
    std::vector<HostRdma> usable;
    for (const auto& host : gathered) {
      if (!host) continue;
      if (host->problem.empty()) {
        usable.push_back(*host);
        continue;
      }
      Measurement waived =
          make_measurement(id(), metrics().front().name, 0, metrics().front().info.unit, "rdma");
      waived.host = host->host;
      waived.status = MeasurementStatus::waived;
      waived.message = host->host + ": " + host->problem;
      sink.emit(std::move(waived));
    }
    const bool all_pairs = option_choice(context.options, kRdmaPairs) == "all";
    std::vector<PairRound> rounds;
    if (usable.size() == 1) {
      rounds.push_back({{0, 0}});  // loopback on the one node
    } else {
      int n = static_cast<int>(usable.size());
      rounds = all_pairs ? circle_rounds(n) : quick_rounds(n);
    }
    for (const auto& round : rounds) {
      auto& hosts = plan.emplace_back();
      for (const auto& pair : round) {
        hosts.emplace_back(usable[static_cast<std::size_t>(pair.a)],
                           usable[static_cast<std::size_t>(pair.b)]);
      }
    }
  }
  for (const auto& round : world.broadcast_value(plan)) run_round(context, sink, mine, round);
}

void RdmaPerftestProbe::run_round(RunContext& context, MeasurementSink& sink, const HostRdma& me,
                                  const std::vector<std::pair<HostRdma, HostRdma>>& pairs) {
  World& world = context.world;
  const std::string& root = context.options.sysfs_root;
  std::uint64_t size =
      context.options.sizes.empty() ? default_size_ : context.options.sizes.front();
  std::vector<std::string> gpus;
  for (const auto& link : read_pcie_links(root)) {
    if (link.kind == PcieDeviceKind::gpu) gpus.push_back(link.bdf);
  }
  const bool use_cuda = option_flag(context.options, kRdmaUseCuda);
  auto invocation = [&](const std::string& hca, int rail, const std::string& server) {
    PerftestInvocation run;
    run.tool = tool_;
    run.hca = hca;
    run.tcp_port = kFirstTcpPort + rail;
    run.server = server;
    run.size_bytes = size;
    std::error_code error;
    auto device = std::filesystem::canonical(
        std::filesystem::path(root) / "sys/class/infiniband" / hca / "device", error);
    if (use_cuda && !gpus.empty() && !error) {
      run.cuda_bus_id = nearest_pci_device(root, device.filename().string(), gpus);
    }
    return run;
  };
  auto cpus_of = [&](const std::string& hca) {
    std::error_code error;
    auto dev = std::filesystem::canonical(
        std::filesystem::path(root) / "sys/class/infiniband" / hca / "device", error);
    return error ? std::vector<int>{} : pci_local_cpus(root, dev.filename().string());
  };

  std::vector<std::unique_ptr<ChildProcess>> servers;
  // Each server's run and its client's "host/hca": the server is the side that validates.
  std::vector<std::pair<PerftestInvocation, std::string>> server_runs;
  std::vector<std::tuple<PerftestInvocation, std::string, std::vector<int>>> clients;
  for (const auto& [server, client] : pairs) {
    std::size_t rails = std::min(server.hcas.size(), client.hcas.size());
    bool loopback = server.host == client.host;
    // A peer name perftest would take for an option ("-h...") is refused on both sides before
    // anything starts; the client says why.
    const std::string refusal = loopback ? std::string() : perftest_peer_refusal(server.host);
    if (!refusal.empty()) {
      if (me.host == client.host && world.local_rank() == 0) {
        for (std::size_t rail = 0; rail < rails; ++rail) {
          Measurement m = make_measurement(id(), metrics().front().name, 0,
                                           metrics().front().info.unit, client.hcas[rail]);
          m.peer = server.host + "/" + server.hcas[rail];
          m.status = MeasurementStatus::error;
          m.message = std::string(perftest_program(tool_)) + " " + client.hcas[rail] + " -> " +
                      m.peer + ": peer host name refused (" + refusal + "); nothing run";
          sink.emit(std::move(m));
        }
      }
      continue;
    }
    // Both ends must ask for it: perftest compares the two sides' settings.
    const bool validate = tool_ == PerftestTool::write_bw && server.validates && client.validates;
    for (std::size_t rail = 0; rail < rails; ++rail) {
      if (me.host == server.host && world.local_rank() == 0) {
        auto run = invocation(server.hcas[rail], static_cast<int>(rail), "");
        run.data_validation = validate;
        servers.push_back(std::make_unique<ChildProcess>(perftest_argv(run), cpus_of(run.hca)));
        server_runs.emplace_back(run, client.host + "/" + client.hcas[rail]);
        if (!validate && tool_ == PerftestTool::write_bw) {
          emit_unvalidated(sink, run, server_runs.back().second,
                           server.validates ? client.host : server.host);
        }
      }
      if (me.host == client.host && world.local_rank() == 0) {
        auto run = invocation(client.hcas[rail], static_cast<int>(rail),
                              loopback ? std::string("localhost") : server.host);
        run.data_validation = validate;
        run.json_file =
            (context.run_dir / "fabric" / (id() + "." + me.host + "." + run.hca + ".json"))
                .string();
        clients.emplace_back(run, server.host + "/" + server.hcas[rail], cpus_of(run.hca));
      }
    }
  }
  world.barrier();  // every server of this round is started
  if (!clients.empty()) {
    std::filesystem::create_directories(context.run_dir / "fabric");
    std::this_thread::sleep_for(std::chrono::seconds(1));  // let the servers bind their ports
    std::vector<std::unique_ptr<ChildProcess>> running;
    for (const auto& [run, peer, cpus] : clients) {
      running.push_back(std::make_unique<ChildProcess>(perftest_argv(run), cpus));
    }
    for (std::size_t i = 0; i < running.size(); ++i) {
      const auto& [run, peer, cpus] = clients[i];
      std::string pinning =
          cpus.empty() ? "unpinned" : std::to_string(cpus.size()) + " HCA-local CPUs";
      emit_result(sink, run, running[i]->wait(kRunTimeoutS), peer, pinning);
    }
  }
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const ChildResult result = servers[i]->wait(kRunTimeoutS);
    const auto& [run, peer] = server_runs[i];
    if (run.data_validation) emit_validation(sink, run, result, peer);
  }
  world.barrier();  // the round is over everywhere before the next one starts servers
}

void RdmaPerftestProbe::emit_result(MeasurementSink& sink, const PerftestInvocation& run,
                                    const ChildResult& result, const std::string& peer,
                                    const std::string& pinning) {
  Measurement m =
      make_measurement(id(), metrics().front().name, 0, metrics().front().info.unit, run.hca);
  m.peer = peer;
  m.size_bytes = run.size_bytes;
  m.params["tcp_port"] = std::to_string(run.tcp_port);
  m.params["memory"] = run.cuda_bus_id.empty() ? "host" : "cuda:" + run.cuda_bus_id;
  m.params["pinning"] = pinning;
  std::string json;
  if (std::ifstream in{run.json_file}) {
    std::ostringstream text;
    text << in.rdbuf();
    json = text.str();
  }
  auto fail = [&](const std::string& why) {
    std::string tail = result.output.size() > 400 ? result.output.substr(result.output.size() - 400)
                                                  : result.output;
    m.status = MeasurementStatus::error;
    m.message = std::string(perftest_program(run.tool)) + " " + run.hca + " -> " + peer + ": " +
                why + (tail.empty() ? "" : "; output: " + std::string(text::trim(tail)));
    sink.emit(std::move(m));
  };
  if (!result.problem.empty()) return fail(result.problem);
  if (result.timed_out) return fail("timed out");
  if (result.exit_code != 0) return fail("exit code " + std::to_string(result.exit_code));
  const std::string why = read_figure(result, json, m);
  if (!why.empty()) return fail(why);
  sink.emit(std::move(m));
}

void RdmaPerftestProbe::emit_validation(MeasurementSink& sink, const PerftestInvocation& run,
                                        const ChildResult& result, const std::string& peer) {
  const PerftestValidation validation = parse_perftest_validation(result.output);
  Measurement m = make_measurement(id(), kPayloadMismatchMetric,
                                   static_cast<double>(validation.errors), "count", run.hca);
  m.peer = peer;
  m.size_bytes = run.size_bytes;
  m.params["validation"] = validation.line;
  m.params["memory"] = run.cuda_bus_id.empty() ? "host" : "cuda:" + run.cuda_bus_id;
  using Result = PerftestValidation::Result;
  if (validation.result != Result::passed && validation.result != Result::failed) {
    // Asked for and not answered: the payload is not known to be right.
    m.status = MeasurementStatus::error;
    m.message = std::string(perftest_program(run.tool)) + " " + run.hca + " <- " + peer +
                ": --data_validation gave no verdict (" +
                (validation.line.empty()
                     ? "no VALIDATION: line; exit code " + std::to_string(result.exit_code)
                     : validation.line) +
                ")";
  }
  sink.emit(std::move(m));
}

void RdmaPerftestProbe::emit_unvalidated(MeasurementSink& sink, const PerftestInvocation& run,
                                         const std::string& peer, const std::string& lacking) {
  Measurement m = make_measurement(id(), kPayloadMismatchMetric, 0, "count", run.hca);
  m.peer = peer;
  m.status = MeasurementStatus::waived;
  m.message = "payload not validated: ib_write_bw on " + lacking +
              " has no --data_validation (perftest 26.04 or later has it)";
  sink.emit(std::move(m));
}

}  // namespace fabcheck
