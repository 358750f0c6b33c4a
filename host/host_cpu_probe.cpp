// host.cpu: on each host's first rank, the CPUs the job may use and who else used them during a
// window (--opt host.cpu.window_s, default 2); this job's ranks (told by pid) are not "others".
#include <sched.h>

#include <fmt/format.h>

#include "bench/core/probe.hpp"
#include "bench/core/run_processes.hpp"
#include "bench/sys/cpu_list.hpp"
#include "host/host_cpu.hpp"

namespace fabcheck {
namespace {

std::string this_process_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string text;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) text += (text.empty() ? "" : ",") + std::to_string(cpu);
  }
  return text;
}

// This job's ranks on this host: their pids (not "others", as gpu.health tells its own GPU memory)
// and the union of the CPUs they may run on (each rank is usually bound to a few).
void job_on_this_host(World& world, HostCpuSampling& how) {
  for (unsigned pid : run_pids_on_this_host(world)) how.job_pids.insert(static_cast<int>(pid));
  const auto every_rank = world.all_gather_values(this_process_cpus());
  std::set<int> cpus;
  for (std::size_t rank = 0; rank < every_rank.size(); ++rank) {
    if (world.hosts()[rank] != world.host()) continue;
    if (auto parsed = parse_cpu_list(every_rank[rank])) cpus.insert(parsed->begin(), parsed->end());
  }
  how.job_cpus.assign(cpus.begin(), cpus.end());
}

const OptionSpec kWindow{.key = "host.cpu.window_s",
                         .type = OptionType::number,
                         .default_value = "2",
                         .meaning = "seconds host.cpu watches other processes' CPU use",
                         .min = 0.1,
                         .max = 600,
                         .budget_floor = "0.5"};

class HostCpuProbe final : public Probe {
 public:
  HostCpuProbe()
      : Probe({.id = kHostCpuProbe,
               .description = "CPUs the job may use (affinity, cgroup v1/v2 cpuset and quota), "
                              "frequency governor and clock, steal time, and the CPU other "
                              "processes took over a window (--opt host.cpu.window_s=2) with the "
                              "top consumers named",
               .metrics = {{"usable_cpus", {"count", Better::higher}},
                           {"cpu_quota_cores", {"cores", Better::higher}},
                           {"cpu_governor", {"count", Better::lower}},
                           {"cpu_freq_mhz", {"MHz", Better::higher}},
                           {"steal_pct", {"%", Better::lower}},
                           {"other_cpu_cores", {"cores", Better::lower}}},
               .scope = ProbeScope::host,
               .options = {kWindow},
               // The window, and reading /proc and the cgroup around it.
               .estimate =
                   [](const RunOptions& options, const JobShape&) {
                     const double window_s = option_number(options, kWindow);
                     return ProbeEstimate{0.2 + window_s, fmt::format("window {:g} s", window_s)};
                   },
               .budget_priority = BudgetPriority::essential,
               .plans = {{"gate"}, {"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::node,
               .repairs = {{"", "cpu-taken", repair_action::inspect}}}) {}
  void run(RunContext& context, MeasurementSink& sink) override {
    HostCpuSampling how;
    how.window_s = option_number(context.options, kWindow);
    how.sysfs_root = context.options.sysfs_root;
    job_on_this_host(context.world, how);
    if (!context.runs_host_scoped()) return;  // one reading per host
    for (Measurement& m : host_cpu_measurements(sample_host_cpu(how), context.world.local_size())) {
      sink.emit(std::move(m));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_host_cpu_probe() { return std::make_unique<HostCpuProbe>(); }

}  // namespace fabcheck
