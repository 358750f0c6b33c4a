// fabric.pcie_links: link generation, width and AER totals of every GPU, HCA, NIC and NVMe device.
#include "fabric/link_measurements.hpp"
#include "fabric/pcie_link.hpp"
#include "fabric/probes.hpp"

namespace fabcheck {

namespace {

class PcieLinksProbe : public Probe {
 public:
  std::string id() const override { return kPcieLinksProbe; }
  std::string description() const override {
    return "PCIe link speed and width of GPUs, HCAs, NICs and NVMe against their maximum, and AER "
           "error totals (sysfs; --opt pcie.gpus_under_load=1 when GPUs are busy meanwhile)";
  }
  std::vector<MetricSpec> metrics() const override { return pcie_link_metrics(); }
  Applicability applies(const World&, const RunOptions&) const override {
    return Applicability::yes();
  }
  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;  // one reading per host
    auto load = context.options.extra.find("pcie.gpus_under_load");
    bool loaded = load != context.options.extra.end() && load->second == "1";
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
