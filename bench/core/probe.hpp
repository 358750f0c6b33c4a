// Probe: one named test ("coll.all_reduce"), declared in its own file (ProbeInfo: what it is, needs
// and writes, the options it reads) with the body that runs on every rank of the World.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/core/earlier_run.hpp"
#include "bench/core/live_table.hpp"
#include "bench/core/option_spec.hpp"
#include "bench/core/world.hpp"
#include "results/measurement.hpp"
#include "results/metric_catalog.hpp"
#include "results/repair.hpp"

namespace fabcheck {

struct Applicability {
  bool applies = true;
  std::string reason;  // why not, when it does not ("no CUDA device", "built without MPI")

  static Applicability yes() { return {}; }
  static Applicability waived(std::string why) { return {false, std::move(why)}; }
};

// How far a probe is through its steps (a collective's sizes): `done` of `count` finished, `next`
// the one beginning ("64MiB"; empty once the last ended), `unit` what a step is ("size").
struct ProgressStep {
  int done = 0;
  int count = 0;
  std::string unit = "size";
  std::string next;
};

// Options a probe reads; every rank gets the same values.
struct RunOptions {
  std::vector<std::uint64_t> sizes;  // message sizes for sweeps; empty: the probe's own default
  int iters = 20;                    // timed iterations per size
  int warmup = 5;                    // untimed iterations per size
  double probe_timeout_s = 300;      // watchdog limit for one probe on every rank
  std::string backend;               // collective backend: "mpi", "nccl", or "" for the default
  std::vector<std::string> storage_paths;    // --storage-path (repeatable)
  std::string sysfs_root = "/";              // --sysfs-root: where sysfs readers look
  std::map<std::string, std::string> extra;  // family-specific options (--opt key=value)
  // Host-scoped probes (PCIe links, IB ports and counters, topology, NCCL transport, storage local)
  // read or load each host once, on its first rank; --every-rank runs them on every rank.
  bool host_probes_on_every_rank = false;
};

// Where a probe puts its figures. A measurement with an empty host is this rank's own: the sink
// stamps it with this rank's host and rank. A figure combined across ranks is emitted on the root
// with rank -1 and host set to the hosts it covers (comma-separated). Empty times are stamped too.
// A probe prints nothing: what a person should read about how it runs (the backend and ranks, a
// round of node pairs) is a note, which the reporters show (the console as it comes).
class MeasurementSink {
 public:
  virtual ~MeasurementSink() = default;
  virtual void emit(Measurement measurement) = 0;
  // One or more whole lines ("# coll.all_reduce: backend mpi, 2 ranks ...").
  virtual void note(const std::string& /*text*/) {}
  // Where the probe is in its own work (the root's word counts): a step began, or the last ended.
  virtual void step(const ProgressStep& /*step*/) {}
};

// Why this rank's node is not fit to be measured (another job's process on a GPU, a GPU busy,
// the fabric manager down), as node.preflight found it; heavy probes are waived while it holds any.
struct NodeFitness {
  std::vector<std::string> unfit_reasons;
  bool fit() const { return unfit_reasons.empty(); }
};

// Everything a running probe may use.
struct RunContext {
  World& world;
  const RunOptions& options;
  std::filesystem::path run_dir;   // the run's output directory (same path on every rank)
  NodeFitness* fitness = nullptr;  // the runner's, for node.preflight to fill; null in bare tests

  // Whether this rank runs a host-scoped probe: each host's first rank, or every rank when asked.
  bool runs_host_scoped() const {
    return world.local_rank() == 0 || options.host_probes_on_every_rank;
  }
};

struct MetricSpec {
  std::string name;
  MetricInfo info;
};

// A condition a probe needs before it can run: a build feature (CUDA, MPI), a device, an input
// (--storage-path). The registry checks a probe's requirements before anything else and waives the
// probe with the first unmet one's reason, so no probe body exists for a build that lacks it.
struct Requirement {
  std::string name{};    // what `fabcheck list` shows: "CUDA GPU", "NVML", "--storage-path"
  bool in_build = true;  // false: this binary was built without it ("built without <name>")
  // "" when met here, else why not ("no CUDA device (NVML sees none)"). Decided alike on every
  // rank where it can be; the runner waives on all ranks when any rank says no.
  std::function<std::string(const World&, const RunOptions&)> unmet{};
};

// What is known about the job before anything runs (from the launcher and the options): what a
// probe's estimate and the waivers known in advance are derived from.
struct JobShape {
  int ranks = 1;
  int hosts = 1;
  int ranks_per_host = 1;
  // The collective backend the run would use ("mpi", "nccl"), "" when there is none.
  std::string backend{};
  bool mpi = false;  // an MPI world (false: --single-process or built without MPI)
  // The plan's probe ids in order: what runs before a probe can change its cost (fabric.ib_counters
  // reads no interval when fabric.ib_ports took a snapshot).
  std::vector<std::string> plan{};
  // An earlier run's figures (--estimate-from), on the first rank only: a probe that can estimates
  // from what it measured there; null: the probes' assumed rates.
  std::shared_ptr<const EarlierRun> earlier{};
};

// A probe's estimated run time, from the options it reads, and the knobs that set it ("sizes
// 1MiB..64MiB (3), 3 warm-up + 10 iters").
struct ProbeEstimate {
  double seconds = 0;
  std::string knobs{};
};

// How readily --budget drops a probe once trimming the options is not enough: low first, then
// normal, then high; essential probes (cheap reads of the node: preflight, kernel log, links) stay.
enum class BudgetPriority { essential, high, normal, low };
const char* to_string(BudgetPriority priority);

// Where a probe runs in a built-in plan (gate, acceptance, sweep, quick): plans run their probes
// by stage, the node first and the counters' growth near the end; probes of one stage run in
// registration order (their families' probes.def). The stages leave room between them.
namespace plan_stage {
inline constexpr int node = 100;          // fit to be measured, kernel log, CPUs, binding, memory
inline constexpr int links = 200;         // PCIe links, RDMA ports, topology
inline constexpr int gpu = 400;           // the GPUs alone
inline constexpr int collectives = 500;   // every rank together
inline constexpr int transport = 600;     // what NCCL's own logs of the probes above prove
inline constexpr int counters = 650;      // error counters' growth since fabric.ib_ports
inline constexpr int node_pairs = 700;    // every pair of nodes
inline constexpr int rdma = 800;          // perftest between node pairs
inline constexpr int storage = 900;
// After every other NCCL probe: what it forces (NCCL_P2P_DISABLE ...) NCCL reads once a process and
// keeps, so before them it would decide their transports; after them it waives itself (an earlier
// NCCL communicator decided the process's), so it measures in a fabcheck run of its own.
inline constexpr int nic_loopback = 950;
inline constexpr int last = 1000;
}  // namespace plan_stage

// A built-in plan a probe belongs to, and its stage there when that is not the probe's own.
struct PlanPlace {
  std::string plan;
  int stage = -1;  // -1: ProbeInfo::plan_stage
  // The plan promises what this probe judges (the gate's all-reduce bandwidth): --budget never
  // drops it, a world-scope one needs every GPU's rank (bench/cli/launch_check.hpp), and a run in
  // which it judged nothing is incomplete, never a pass.
  bool required = false;
};

// The buffers a probe holds per rank at the size that needs the most (ProbeInfo::buffer_need).
struct BufferNeed {
  std::uint64_t size_bytes = 0;      // the size that needs the most
  std::uint64_t bytes_per_rank = 0;  // input + output buffers of one rank at that size
};

// What one measurement of the probe covers: each rank's own share, one reading per host (taken by
// the host's first rank), or one figure across ranks or hosts (collectives, node pairs).
enum class ProbeScope { rank, host, world };
const char* to_string(ProbeScope scope);

// Whether the generic peer judge (results/peer_judge.hpp) compares the probe's figures with their
// peers' (GPUs, HCAs and GPU pairs of a node; each node against the other nodes; node pairs), and
// what it leaves to a family judge. The CLI gathers these from the registry into PeerJudgeOptions.
struct PeerComparison {
  // false: none of its figures is compared with peers, because its family judge names the outlier
  // itself (a link against its siblings and the profile, node pairs' own localisation) or because
  // the figure is no property of a node (each rank's share of one shared system).
  bool compared = true;
  // Metrics whose comparison among one node's GPUs a family judge makes itself (the GPU judge's
  // slow GPU); the peer judge still compares them across nodes.
  std::vector<std::string> within_node_by_family_judge{};
  // Metrics compared across nodes only, never within a run, even where `compared` is false: a
  // figure of a shared filesystem that several ranks or hosts of one run share is their share of
  // it, but a node measured alone on the path (a run of its own: a sweep's, or separate runs) is
  // measured under the same conditions as another node measured alone there. Peers are the
  // figures of the same probe, metric, conditions, size, path and ranks per node on it; one far
  // below the fleet's median is a WARN that also names contention (results/peer_judge.hpp).
  std::vector<std::string> across_runs_only{};
};

// Everything a probe declares about itself, in its own file; the registry derives the rest (the
// waiver, `fabcheck list`, option validation, the storage footprint) from it.
struct ProbeInfo {
  std::string id{};           // "family.name"
  std::string description{};  // one line: what it measures
  std::vector<MetricSpec> metrics{};
  std::vector<Requirement> needs{};
  ProbeScope scope = ProbeScope::rank;
  // Puts sustained load on GPUs, links or storage (minutes on an acceptance plan): it is WAIVED on
  // a node that node.preflight found unfit, and error counters are read around it (growth during
  // it is named).
  bool heavy = false;
  std::vector<OptionSpec> options{};  // the family options its run() reads
  // Bytes it has on disk at once under one --storage-path (probes run one after another and each
  // removes its files); empty for probes that write none. Reads the validated options.
  std::function<std::uint64_t(const RunOptions&, int world_size)> storage_bytes{};
  // The buffers it holds per rank at its largest size (the collectives' input and output) on the
  // backend that will run it ("mpi": host memory, "nccl": GPU memory) with `ranks` ranks, from the
  // validated options: memory is planned with it before anything starts (bench/cli/memory_plan).
  // Empty for probes that hold no such buffers. Throws ConfigError when no size given can run.
  std::function<BufferNeed(const RunOptions&, const std::string& backend, int ranks)> buffer_need{};
  // Checks across options (a file at least one block long) beyond each option's own rule; throws
  // ConfigError. Called before anything runs.
  std::function<void(const RunOptions&)> check_options{};
  // The console's table of the probe's gathered measurements (the collectives' nccl-tests-style
  // table); empty: the generic table (measurement_table.hpp).
  std::function<std::string(const std::vector<Measurement>&)> console_table{};
  // The console's table printed while the probe runs, for a table whose rows are the root's own
  // figures (nccl-tests' row per size as it finishes); empty: console_table at the end.
  std::function<std::unique_ptr<LiveTable>()> live_table{};
  // Seconds it takes with these (validated) options on a job of this shape, derived from what it
  // reads (sizes, iterations, durations, bytes at a stated conservative rate); empty: no model,
  // and the plan uses kDefaultProbeEstimate_s and says "estimate: default". Clamped by
  // RunOptions::probe_timeout_s where it is used (bench/core/plan_estimate.hpp).
  std::function<ProbeEstimate(const RunOptions&, const JobShape&)> estimate{};
  BudgetPriority budget_priority = BudgetPriority::normal;
  // The built-in plans it is part of (bench/core/plan.hpp) and where it runs in them.
  std::vector<PlanPlace> plans{};
  int plan_stage = plan_stage::last;
  PeerComparison peers{};
  // What a FAIL of each metric is and the first repair to try (results/repair.hpp), in order:
  // summary.json and `fabcheck answer` give them beside each drain.
  std::vector<RepairRule> repairs{};
};

class Probe {
 public:
  explicit Probe(ProbeInfo info) : info_(std::move(info)) {}
  virtual ~Probe() = default;

  const ProbeInfo& info() const { return info_; }
  const std::string& id() const { return info_.id; }
  const std::string& description() const { return info_.description; }
  const std::vector<MetricSpec>& metrics() const { return info_.metrics; }

  // Conditions beyond the declared requirements that only the probe can judge (an earlier NCCL
  // probe in this process, no RDMA port). Asked only when every requirement is met.
  virtual Applicability applies(const World& /*world*/, const RunOptions& /*options*/) const {
    return Applicability::yes();
  }
  // Runs on every rank. Throws on failure; the runner records an ERROR and goes on.
  virtual void run(RunContext& context, MeasurementSink& sink) = 0;
  // ProbeInfo::heavy.
  bool heavy() const { return info_.heavy; }

 private:
  ProbeInfo info_;
};

// Whether `probe` runs here: the first unmet requirement ("built without CUDA", "no
// --storage-path given"), else the probe's own applies().
Applicability applicability_of(const Probe& probe, const World& world, const RunOptions& options);

}  // namespace fabcheck
