// fabric.rdma_lat: RDMA write latency per HCA between node pairs (perftest ib_write_lat): the
// typical latency, with perftest's min, max, p99 and p99.9 as the figure's statistics, in us.
#include "fabric/perftest_output.hpp"
#include "fabric/rdma_perftest.hpp"

namespace fabcheck {

namespace {

class RdmaLatProbe final : public RdmaPerftestProbe {
 public:
  RdmaLatProbe()
      : RdmaPerftestProbe(
            {.id = "fabric.rdma_lat",
             .description =
                 "RDMA write latency per HCA between node pairs (perftest ib_write_lat, us)",
             .metrics = {MetricSpec{"write_lat", MetricInfo{"us", Better::lower}}},
             .scope = ProbeScope::world,
             .heavy = true,
             .options = {kRdmaPairs, kRdmaUseCuda},
             .plans = {{"acceptance"}},
             .plan_stage = plan_stage::rdma,
             // Between node pairs: the slow end is named by the judge, the part by no figure.
             .repairs = {{"", "rdma-slow", repair_action::inspect, FailKind::noisy_figure}}},
            PerftestTool::write_lat, 2) {}

 protected:
  std::string read_figure(const ChildResult& result, const std::string& json,
                          Measurement& m) const override {
    PerftestLat lat =
        json.empty() ? parse_perftest_lat_text(result.output) : parse_perftest_lat_json(json);
    if (!lat.ok()) return lat.error;
    const auto& row = lat.rows.back();
    m.value = row.t_typical;
    SampleStats stats;
    stats.count = row.iterations;
    stats.min = row.t_min;
    stats.median = row.t_typical;
    stats.max = row.t_max;
    stats.p99 = row.p99;
    stats.mean = row.t_avg;
    stats.cv = row.t_avg > 0 ? row.t_stdev / row.t_avg : 0;
    m.stats = stats;
    m.params["p99_9_us"] = std::to_string(row.p999);
    return "";
  }
};

}  // namespace

std::unique_ptr<Probe> make_rdma_lat_probe() { return std::make_unique<RdmaLatProbe>(); }

}  // namespace fabcheck
