// host.mem_bw: STREAM triad bandwidth of each NUMA node (its CPUs on its memory), across nodes
// (one node's CPUs on another's memory) and of the whole host; on each host's first rank.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "bench/core/probe.hpp"
#include "host/memory_bandwidth.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

// A default that suits a large server without crowding a small one (default_stream_array_bytes).
double default_array_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") break;
  }
  return static_cast<double>(default_stream_array_bytes(kib * 1024));
}

const OptionSpec kArrayBytes{.key = "host.mem_bw.bytes",
                             .type = OptionType::byte_size,
                             .meaning =
                                 "bytes per STREAM array (absent: 1/32 of the memory available "
                                 "rounded down to a power of two, 64M to 1G)",
                             .min = 1 << 20,
                             .max = 64.0 * (1ull << 30)};
const OptionSpec kRepeats{.key = "host.mem_bw.repeats",
                          .type = OptionType::integer,
                          .default_value = "5",
                          .meaning = "STREAM triad runs per figure, the best kept",
                          .min = 1,
                          .max = 100,
                          .budget_floor = "2"};

// Assumed for the estimate: 2 GB/s of triad (a loaded small VM; a server socket does 100+).
constexpr double kAssumedTriadGBps = 2;

// Each figure (every NUMA node, every pair of them, the whole host) is `repeats` triads over three
// arrays at the assumed rate.
ProbeEstimate estimate_mem_bw(const RunOptions& options, const JobShape&) {
  const double bytes = option_given(options, kArrayBytes)
                           ? static_cast<double>(option_bytes(options, kArrayBytes))
                           : default_array_bytes();
  const auto repeats = option_integer(options, kRepeats);
  const double nodes = static_cast<double>(std::max<std::size_t>(1, numa_nodes_and_cpus().size()));
  const double figures = nodes * nodes + 1;
  return {figures * static_cast<double>(repeats) * 3 * bytes / (kAssumedTriadGBps * 1e9),
          std::to_string(repeats) + " repeats of " +
              format_bytes(static_cast<std::uint64_t>(bytes)) + " arrays"};
}

class HostMemBwProbe final : public Probe {
 public:
  HostMemBwProbe()
      : Probe({.id = kHostMemBwProbe,
               .description = "memory bandwidth (STREAM triad, best of --opt "
                              "host.mem_bw.repeats=5) of each NUMA node, across nodes and of the "
                              "whole host; --opt host.mem_bw.bytes per array",
               .metrics = {{"triad_bw", {"GB/s", Better::higher}},
                           {"cross_triad_bw", {"GB/s", Better::higher}},
                           {"node_triad_bw", {"GB/s", Better::higher}}},
               .scope = ProbeScope::host,
               .heavy = true,
               .options = {kArrayBytes, kRepeats},
               .estimate = estimate_mem_bw,
               .plans = {{"acceptance"}},
               .plan_stage = plan_stage::node,
               .repairs = {
                   {"", "memory-bandwidth", repair_action::inspect, FailKind::noisy_figure}}}) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;
    TriadRun run;
    run.bytes_per_array = option_given(context.options, kArrayBytes)
                              ? static_cast<std::size_t>(option_bytes(context.options, kArrayBytes))
                              : static_cast<std::size_t>(default_array_bytes());
    run.repeats = static_cast<int>(option_integer(context.options, kRepeats));
    const auto nodes = numa_nodes_and_cpus();
    auto emit = [&](const char* metric, const std::string& subject, double gbps) {
      Measurement m;
      m.probe = kHostMemBwProbe;
      m.metric = metric;
      m.value = gbps;
      m.unit = "GB/s";
      m.subject = subject;
      m.size_bytes = run.bytes_per_array;
      m.params["threads"] = std::to_string(run.cpus.size());
      m.params["memory_node"] = run.memory_node < 0 ? "local" : std::to_string(run.memory_node);
      m.params["repeats"] = std::to_string(run.repeats);
      sink.emit(std::move(m));
    };
    std::vector<int> all_cpus;
    for (const auto& [node, cpus] : nodes) {
      run.cpus = cpus;
      run.memory_node = nodes.size() > 1 ? node : -1;
      emit("triad_bw", "numa" + std::to_string(node), stream_triad_gbps(run));
      context.world.mark_progress();
      all_cpus.insert(all_cpus.end(), cpus.begin(), cpus.end());
    }
    // Every ordered pair on a few nodes; on many, each node's CPUs on the next node's memory.
    for (auto from = nodes.begin(); from != nodes.end() && nodes.size() > 1; ++from) {
      for (auto to = nodes.begin(); to != nodes.end(); ++to) {
        if (to == from) continue;
        auto next = std::next(from) == nodes.end() ? nodes.begin() : std::next(from);
        if (nodes.size() > 4 && to != next) continue;
        run.cpus = from->second;
        run.memory_node = to->first;
        emit("cross_triad_bw",
             "numa" + std::to_string(from->first) + "->numa" + std::to_string(to->first),
             stream_triad_gbps(run));
        context.world.mark_progress();
      }
    }
    run.cpus = all_cpus;
    run.memory_node = -1;
    emit("node_triad_bw", "node", stream_triad_gbps(run));
  }
};

}  // namespace

std::unique_ptr<Probe> make_host_mem_bw_probe() { return std::make_unique<HostMemBwProbe>(); }

}  // namespace fabcheck
