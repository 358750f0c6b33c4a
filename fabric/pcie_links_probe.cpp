// fabric.pcie_links: link generation, width and AER totals of every GPU, HCA, NIC and NVMe device.
#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "fabric/link_measurements.hpp"
#include "fabric/pcie_link.hpp"

namespace fabcheck {

namespace {

const OptionSpec kGpusUnderLoad{
    .key = "pcie.gpus_under_load",
    .type = OptionType::flag,
    .default_value = "0",
    .meaning = "GPUs are busy meanwhile: judge their link generation too (idle GPUs downtrain)"};

class PcieLinksProbe : public Probe {
 public:
  PcieLinksProbe()
      : Probe({.id = kPcieLinksProbe,
               .description = "PCIe link speed and width of GPUs, HCAs, NICs and NVMe against "
                              "their maximum, and AER error totals (sysfs)",
               .metrics = pcie_link_metrics(),
               .scope = ProbeScope::host,
               .options = {kGpusUnderLoad},
               .estimate = fixed_estimate(0.2, "reads sysfs"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"gate"}, {"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::links,
               // The fabric judge names a link below its maximum or its siblings.
               .peers = {.compared = false},
               .repairs = {{"aer_*", "pcie-errors", repair_action::reseat},
                           {"", "pcie-link-degraded", repair_action::reseat}}}) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;  // one reading per host
    const bool loaded = option_flag(context.options, kGpusUnderLoad);
    std::vector<SysfsProblem> problems;
    auto links = read_pcie_links(context.options.sysfs_root, &problems);
    for (auto& m : pcie_link_records(links, loaded, problems)) sink.emit(std::move(m));
    if (links.empty() && problems.empty()) {
      Measurement none;
      none.probe = kPcieLinksProbe;
      none.metric = "link_width_deficit";
      none.unit = "count";
      none.subject = "pci";
      none.status = MeasurementStatus::waived;
      none.message =
          "no GPU, HCA, NIC or NVMe device under " +
          (std::filesystem::path(context.options.sysfs_root) / "sys/bus/pci/devices").string();
      sink.emit(std::move(none));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_pcie_links_probe() { return std::make_unique<PcieLinksProbe>(); }

}  // namespace fabcheck
