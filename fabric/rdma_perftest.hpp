// The RDMA probes' shared machinery (fabric.rdma_bw, fabric.rdma_lat): perftest between node
// pairs, every rail side by side, with addresses agreed over the World, each process pinned to its
// HCA's CPUs, GPU memory (nearest GPU) where there are GPUs and rdma.use_cuda allows. A single node
// tests each HCA in loopback. Each probe says which perftest it runs and how its figure is read.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/core/probe.hpp"
#include "bench/sys/child_process.hpp"
#include "fabric/perftest_command.hpp"

namespace fabcheck {

// The options both RDMA probes read.
extern const OptionSpec kRdmaPairs;    // rdma.pairs: quick or all
extern const OptionSpec kRdmaUseCuda;  // rdma.use_cuda: GPU memory for the transfers
// fabric.rdma_bw's record of a pair's payload (ib_write_bw --data_validation on the server): the
// bytes found wrong; above 0 the evaluator's FAIL for wrong data, on the server's HCA and peer.
inline constexpr const char* kPayloadMismatchMetric = "wrong_elements";

struct HostRdma;

class RdmaPerftestProbe : public Probe {
 public:
  // `info` as the probe declares it; `tool` the perftest program it runs; `default_size` the
  // message size when --sizes gives none.
  RdmaPerftestProbe(ProbeInfo info, PerftestTool tool, std::uint64_t default_size);

  // Alone, a node without an active RDMA port or perftest is waived; with several ranks the hosts
  // compare notes in run().
  Applicability applies(const World& world, const RunOptions& options) const override;
  void run(RunContext& context, MeasurementSink& sink) final;

 protected:
  // Sets `m`'s figure (value, stats, params) from one run's perftest JSON (`json`, "" when it
  // wrote none: then its text output); returns why not, "" when it did.
  virtual std::string read_figure(const ChildResult& result, const std::string& json,
                                  Measurement& m) const = 0;

 private:
  void run_round(RunContext& context, MeasurementSink& sink, const HostRdma& me,
                 const std::vector<std::pair<HostRdma, HostRdma>>& pairs);
  void emit_result(MeasurementSink& sink, const PerftestInvocation& run, const ChildResult& result,
                   const std::string& peer, const std::string& pinning);
  // The server's --data_validation verdict on what `peer` wrote into its memory.
  void emit_validation(MeasurementSink& sink, const PerftestInvocation& run,
                       const ChildResult& result, const std::string& peer);
  // WAIVED: the pair ran without validation because `lacking`'s perftest has none.
  void emit_unvalidated(MeasurementSink& sink, const PerftestInvocation& run,
                        const std::string& peer, const std::string& lacking);

  PerftestTool tool_;
  std::uint64_t default_size_;
};

}  // namespace fabcheck
