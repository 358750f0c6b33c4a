// Probe: one named test ("coll.all_reduce"), the metrics it emits, whether it applies here, and how
// it runs on every rank of the World.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/core/world.hpp"
#include "results/measurement.hpp"
#include "results/metric_catalog.hpp"

namespace fabcheck {

struct Applicability {
  bool applies = true;
  std::string reason;  // why not, when it does not ("no CUDA device", "built without MPI")

  static Applicability yes() { return {}; }
  static Applicability waived(std::string why) { return {false, std::move(why)}; }
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
class MeasurementSink {
 public:
  virtual ~MeasurementSink() = default;
  virtual void emit(Measurement measurement) = 0;
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

class Probe {
 public:
  virtual ~Probe() = default;
  virtual std::string id() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<MetricSpec> metrics() const = 0;
  // Decided identically on every rank (from build facts and the World), so all ranks agree.
  virtual Applicability applies(const World& world, const RunOptions& options) const = 0;
  // Runs on every rank. Throws on failure; the runner records an ERROR and goes on.
  virtual void run(RunContext& context, MeasurementSink& sink) = 0;
  // True for a probe that loads GPUs, links or storage for a while: it is WAIVED on a node that
  // node.preflight found unfit, and error counters are read around it (growth during it is named).
  virtual bool heavy() const { return false; }
  // True when run() prints its own console table (the collectives' nccl-tests table); otherwise
  // the runner prints the gathered measurements as a generic table.
  virtual bool prints_own_table() const { return false; }
};

}  // namespace fabcheck
