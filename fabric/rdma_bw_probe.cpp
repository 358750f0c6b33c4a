// fabric.rdma_bw: RDMA write bandwidth per HCA between node pairs (perftest ib_write_bw), from the
// GPU nearest each HCA where there are GPUs; the average of the largest message size, in Gb/s;
// with perftest 26.04 or later every payload byte checked by the receiving side
// (--data_validation).
#include "fabric/perftest_output.hpp"
#include "fabric/rdma_perftest.hpp"

namespace fabcheck {

namespace {

class RdmaBwProbe final : public RdmaPerftestProbe {
 public:
  RdmaBwProbe()
      : RdmaPerftestProbe(
            {.id = "fabric.rdma_bw",
             .description =
                 "RDMA write bandwidth per HCA between node pairs (perftest ib_write_bw, Gb/s), "
                 "the payload validated where perftest offers --data_validation",
             .metrics = {MetricSpec{"write_bw", MetricInfo{"Gb/s", Better::higher}},
                         MetricSpec{kPayloadMismatchMetric, MetricInfo{"count", Better::lower}}},
             .scope = ProbeScope::world,
             .heavy = true,
             .options = {kRdmaPairs, kRdmaUseCuda},
             .plans = {{"acceptance"}},
             .plan_stage = plan_stage::rdma,
             // Between node pairs: the slow end is named by the judge, the part by no figure.
             .repairs = {{kPayloadMismatchMetric, "data-corruption", repair_action::inspect},
                         {"", "rdma-slow", repair_action::inspect, FailKind::noisy_figure}}},
            PerftestTool::write_bw, 8u << 20) {}

 protected:
  std::string read_figure(const ChildResult& result, const std::string& json,
                          Measurement& m) const override {
    PerftestBw bw =
        json.empty() ? parse_perftest_bw_text(result.output) : parse_perftest_bw_json(json);
    if (!bw.ok()) return bw.error;
    const auto& row = bw.rows.back();
    bool mib = bw.unit == "MiB/s";
    m.value = mib ? mib_per_s_to_gbps(row.average) : row.average;
    m.params["peak_gbps"] = std::to_string(mib ? mib_per_s_to_gbps(row.peak) : row.peak);
    m.params["msg_rate_mpps"] = std::to_string(row.msg_rate_mpps);
    return "";
  }
};

}  // namespace

std::unique_ptr<Probe> make_rdma_bw_probe() { return std::make_unique<RdmaBwProbe>(); }

}  // namespace fabcheck
