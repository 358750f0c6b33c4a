// host.sdc: the per-core silent-data-corruption screen: every online CPU computes the same seeded
// integer, FMA and CRC32C blocks for --opt sdc.duration_s, pinned, and a CPU that differs from the
// others or from itself is named (host/sdc_cores.hpp); on each host's first rank.
#include <string>

#include "bench/core/probe.hpp"
#include "bench/sdc/crc32c_unit.hpp"
#include "bench/sdc/fma_lanes_unit.hpp"
#include "bench/sdc/sdc_options.hpp"
#include "host/sdc_cores.hpp"

namespace fabcheck {
namespace {

class HostSdcProbe final : public Probe {
 public:
  HostSdcProbe()
      : Probe({.id = kHostSdcProbe,
               .description = "silent data corruption screen of every CPU core: the same seeded "
                              "integer, FP64/FP32 FMA (scalar and vector) and CRC32C blocks on "
                              "each CPU at once, "
                              "pinned, compared bit for bit across CPUs and with itself; --opt "
                              "sdc.duration_s, sdc.repeats",
               .metrics = {{kSdcMismatchMetric, {"count", Better::lower}},
                           {kSdcSecondsMetric, {"s", Better::lower}}},
               .scope = ProbeScope::host,
               .heavy = true,
               .options = {sdc::kDurationSeconds, sdc::kRepeats, sdc::kSeed},
               .estimate = [](const RunOptions& options,
                              const JobShape&) { return sdc::estimate_passes(options, "CPU"); },
               .plans = {{"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::node,
               .peers = {.compared = false},
               .repairs = {{"", "cpu-wrong-results", repair_action::rma}}}) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;
    CoreScreenPlan plan;
    plan.cpus = online_cpus();
    plan.seed = static_cast<std::uint64_t>(option_integer(context.options, sdc::kSeed));
    plan.passes = static_cast<int>(option_integer(context.options, sdc::kRepeats));
    plan.blocks = fit_blocks_to_seconds(option_number(context.options, sdc::kDurationSeconds),
                                        plan.shape, plan.kernel);
    plan.progress = [&context] { context.world.mark_progress(); };
    const auto places = cpu_places(plan.cpus);
    const auto results = screen_cores(plan);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const CoreResult& core = results[i];
      const std::string subject = "cpu" + std::to_string(core.cpu);
      Measurement wrong =
          make_measurement(kHostSdcProbe, kSdcMismatchMetric,
                           static_cast<double>(core.wrong_blocks), "count", subject);
      wrong.params["package"] = std::to_string(places[i].package);
      wrong.params["core"] = std::to_string(places[i].core);
      wrong.params["cpus"] = std::to_string(results.size());
      wrong.params["blocks"] = std::to_string(core.blocks);
      wrong.params["passes"] = std::to_string(plan.passes);
      wrong.params["steps"] = std::to_string(plan.shape.steps);
      wrong.params["seed"] = std::to_string(plan.seed);
      wrong.params["crc_unit"] = sdc::crc32c_unit_name();
      wrong.params["vector_unit"] = sdc::fma_lanes_unit_name();
      wrong.params["wide_vector_unit"] = sdc::wide_fma_lanes_unit_name();
      if (!core.mismatches.empty()) {
        wrong.params["fault"] = to_string(core.mismatches.front().fault);
        wrong.params["mismatch"] = describe_mismatch(core.mismatches.front());
      }
      if (!core.problem.empty()) {
        wrong.status = MeasurementStatus::error;
        wrong.message = subject + " not screened: " + core.problem;
      }
      sink.emit(wrong);
      if (core.problem.empty()) {
        Measurement seconds =
            make_measurement(kHostSdcProbe, kSdcSecondsMetric, core.seconds, "s", subject);
        seconds.params["blocks"] = wrong.params["blocks"];
        sink.emit(std::move(seconds));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_host_sdc_probe() { return std::make_unique<HostSdcProbe>(); }

}  // namespace fabcheck
