// coll.nic_loopback: an all-reduce among the GPUs of each node with NVLink/PCIe peer access and
// shared memory disabled and GPUDirect RDMA forced, so every byte crosses the NICs (the GDR + IB
// loopback check of SuperBench and AzHC); one communicator per node, the same engine as coll.*.
// Its own NCCL log must show network channels only, else its figures are an ERROR.
#include <algorithm>
#include <utility>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_environment.hpp"
#include "bench/coll/nccl_log_proof.hpp"
#include "bench/coll/register.hpp"
#include "bench/coll/sweep_table.hpp"
#include "bench/core/size_range.hpp"
#include "bench/cuda/cuda_availability.hpp"

namespace fabcheck {

namespace {

// Large messages: the figure to compare with the NICs' line rate.
constexpr const char* kDefaultSizes = "16M:256M:4";

// GPUs each node's communicator would have (the smallest node's, so every rank decides alike).
int gpus_per_node(const World& world, const CudaAvailability& nccl) {
  if (!world.is_mpi()) return nccl.device_count;
  int smallest = world.size();
  for (const auto& host : world.distinct_hosts()) {
    smallest = std::min(
        smallest, static_cast<int>(std::count(world.hosts().begin(), world.hosts().end(), host)));
  }
  return smallest;
}

class NicLoopbackProbe final : public Probe {
 public:
  explicit NicLoopbackProbe(NcclLogProof proof)
      : Probe({.id = "coll.nic_loopback",
               .description = "NCCL all-reduce among each node's GPUs forced through the NICs (no "
                              "P2P, no SHM, GDR)",
               .metrics = collective_metrics(),
               .needs = {nccl_requirement()},
               .scope = ProbeScope::host,
               .heavy = true,
               .options = {ops_per_sample_option()},
               .console_table =
                   [](const std::vector<Measurement>& measurements) {
                     return sweep_console_table(find_collective("all_reduce"), measurements);
                   },
               .plans = {{"acceptance"}, {"quick"}},
               .plan_stage = plan_stage::nic_loopback,
               .repairs = {{"wrong_elements", "data-corruption", repair_action::inspect},
                           {"", "nic-loopback-slow", repair_action::inspect,
                            FailKind::noisy_figure}}}),
        proof_(std::move(proof)) {}

  Applicability applies(const World& world, const RunOptions& /*options*/) const override {
    const CudaAvailability nccl = cuda_availability();
    if (gpus_per_node(world, nccl) < 2) {
      return Applicability::waived(
          "needs two GPUs (ranks) on every node: a one-rank all-reduce never reaches the NIC");
    }
    if (nccl_communicator_created()) {
      return Applicability::waived(
          "an earlier NCCL probe of this process already made NCCL read NCCL_P2P_DISABLE, "
          "NCCL_SHM_DISABLE and NCCL_NET_GDR_LEVEL (it reads them once a process), so what this "
          "probe forces would not take: run it in a fabcheck run of its own (fabcheck run "
          "--probes coll.nic_loopback); before other NCCL probes it would decide their transports");
    }
    return Applicability::yes();
  }

  void run(RunContext& context, MeasurementSink& sink) override {
    NcclBackendSettings settings;
    settings.scope = NcclScope::host;
    settings.forced_environment = nic_loopback_environment(context.run_dir, id());
    auto backend =
        make_nccl_backend(context.world, context.options, context.run_dir, id(), settings);
    SweepConfig config;
    config.collective = &find_collective("all_reduce");
    config.sizes =
        context.options.sizes.empty() ? parse_size_sweep(kDefaultSizes) : context.options.sizes;
    config.warmup = context.options.warmup;
    config.iters = context.options.iters;
    config.ops_per_sample = ops_per_sample_from(context.options);
    run_collective_sweep(*backend, config, context.world, sink, id());
    backend.reset();  // NCCL's log is complete and the probe's environment restored
    prove_network_only(context, sink);
  }

 private:
  // Each host's first rank reads the host's logs; the root turns every host's problem into an
  // ERROR measurement: figures that may have travelled over NVLink or shared memory are not the
  // NICs'.
  void prove_network_only(RunContext& context, MeasurementSink& sink) const {
    World& world = context.world;
    std::string problem;
    if (world.local_rank() == 0) {
      problem = proof_ ? proof_(nccl_log_dir(context.run_dir), id(), world.host())
                       : "this build cannot read NCCL logs, so the NIC path cannot be shown";
    }
    const auto problems = world.gather_values(std::make_pair(world.host(), problem));
    for (const auto& [host, host_problem] : problems) {
      if (host_problem.empty()) continue;
      Measurement m;
      m.probe = id();
      m.metric = "busbw";
      m.unit = "GB/s";
      m.host = host;
      m.rank = -1;
      m.subject = "nccl-log";
      m.status = MeasurementStatus::error;
      m.message = host_problem;
      sink.emit(std::move(m));
    }
  }

  NcclLogProof proof_;
};

}  // namespace

std::unique_ptr<Probe> make_nic_loopback_probe(const NcclLogProof& proof) {
  return std::make_unique<NicLoopbackProbe>(proof);
}

}  // namespace fabcheck
