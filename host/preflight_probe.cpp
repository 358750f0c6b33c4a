// node.preflight: first in every plan; is this node fit to be measured (GPUs idle and set up, the
// fabric manager up where NVSwitches are, no memory repair pending) and which versions it runs.
// What makes it unfit is a FAIL finding, and the runner waives the heavy probes with the reason.
#include "host/preflight_probe.hpp"

#include <cstdlib>
#include <set>

#include "bench/core/plan_estimate.hpp"
#include "bench/core/run_processes.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "bench/sys/nvml_reader.hpp"
#include "bench/sys/pci_devices.hpp"
#include "bench/sys/text_scan.hpp"
#include "host/gpu_preflight.hpp"
#include "host/node_hardware.hpp"
#include "host/node_versions.hpp"
#include "host/preflight.hpp"

namespace fabcheck {
namespace {

const OptionSpec kEnforce{.key = "preflight.enforce",
                          .type = OptionType::flag,
                          .default_value = "1",
                          .meaning = "0: report an unfit node but run the heavy probes anyway"};

std::vector<MetricSpec> preflight_metrics() {
  auto count = [](const char* name) { return MetricSpec{name, {"count", Better::lower}}; };
  auto flag = [](const char* name, Better better) { return MetricSpec{name, {"bool", better}}; };
  return {count("foreign_processes"),
          {"utilization", {"%", Better::lower}},
          {"memory_used", {"GB", Better::lower}},
          flag("persistence_mode", Better::higher),
          count("retired_pages"),
          flag("retired_pages_pending", Better::lower),
          flag("row_remap_pending", Better::lower),
          flag("row_remap_failure", Better::lower),
          count("unreadable_gpus"),
          flag("fabric_manager", Better::higher),
          {"versions", {"count", Better::higher}},
          {kGpusOnBusMetric, {"count", Better::higher}},
          {kGpusUnusableMetric, {"count", Better::lower}},
          {kNvmeOnBusMetric, {"count", Better::higher}}};
}

class PreflightProbe final : public Probe {
 public:
  PreflightProbe(std::function<const NvmlSession&()> nvml, std::function<std::string()> cuda,
                 bool nvml_of_the_tree)
      : Probe({.id = kPreflightProbe,
               .description =
                   "is the node fit to be measured: no other process on its GPUs, GPUs idle "
                   "(utilisation, memory), persistence mode, fabric manager where NVSwitches are, "
                   "no pending page retirement or row remap; versions (driver, CUDA, NCCL, VBIOS, "
                   "HCA firmware, rdma-core, OFED, kernel); the NVIDIA GPUs and NVMe controllers "
                   "on the PCI bus, each GPU with what is missing to use it (driver, NVML, CUDA). "
                   "Unfit: the heavy probes are waived (--opt preflight.enforce=0 runs them "
                   "anyway)",
               .metrics = preflight_metrics(),
               .scope = ProbeScope::host,
               .options = {kEnforce},
               .estimate = fixed_estimate(0.5, "NVML, sysfs and version queries"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"gate"}, {"acceptance"}, {"sweep"}, {"quick"}},
               .plan_stage = plan_stage::node,
               .repairs = {{"gpus_unusable", "gpu-driver-missing", repair_action::reboot},
                           {"gpus_on_bus", "gpu-missing", repair_action::reseat},
                           {"nvme_on_bus", "nvme-missing", repair_action::reseat},
                           {"row_remap_failure", "gpu-row-remap-failed", repair_action::rma},
                           {"retired_pages", "gpu-retired-pages", repair_action::rma},
                           {"*_pending", "gpu-memory-remap-pending", repair_action::reboot},
                           {"unreadable_gpus", "gpu-unreadable", repair_action::reboot},
                           {"fabric_manager", "fabric-manager-down", repair_action::reboot},
                           {"persistence_mode", "gpu-persistence-off", repair_action::inspect},
                           {"versions", "driver-version", repair_action::inspect},
                           {"", "gpu-in-use", repair_action::inspect}}}),
        nvml_(std::move(nvml)),
        cuda_(std::move(cuda)),
        nvml_of_the_tree_(nvml_of_the_tree) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    // Every rank's pids (a World collective): this run's own CUDA contexts are not foreign.
    const std::set<unsigned> own_pids = run_pids_on_this_host(context.world);
    if (context.world.local_rank() != 0) return;  // one reading per host
    const RunOptions& options = context.options;
    const bool enforce = option_flag(options, kEnforce);
    std::vector<Measurement> out;

    Measurement versions;
    versions.probe = kPreflightProbe;
    versions.metric = "versions";
    versions.unit = "count";
    versions.subject = "node";
    versions.params["kernel"] = kernel_release();
    const NvmlSession& nvml = nvml_();
    // What the bus has, against what the drivers show (an NVML-less node still has its GPUs).
    GpuDriverView view;
    // A recorded tree's node has its own drivers; a double given by a test stands for them.
    view.asked = nvml_of_the_tree_ || options.sysfs_root == "/";
    view.nvml_problem = nvml.ok() ? "" : nvml.reason;
    if (nvml.ok()) {
      for (const NvmlDeviceIdentity& gpu : read_nvml_identities(*nvml.api, nvml.device_count))
        view.nvml_bus_ids.insert(gpu.bus_id);
    }
    if (cuda_) view.cuda_problem = cuda_();
    for (Measurement& m : node_hardware_measurements(
             compare_node_hardware(read_pci_devices(options.sysfs_root), view), kPreflightProbe))
      out.push_back(std::move(m));
    if (nvml.ok()) {
      std::vector<std::string> unreadable;
      const auto gpus = read_gpu_preflight(
          *nvml.api, nvml.device_count, own_pids,
          [](unsigned pid) { return pid_visible_here(pid); }, unreadable);
      for (Measurement& m : gpu_preflight_measurements(gpus, kPreflightProbe))
        out.push_back(std::move(m));
      if (!unreadable.empty()) {
        Measurement lost;
        lost.probe = kPreflightProbe;
        lost.metric = "unreadable_gpus";
        lost.value = static_cast<double>(unreadable.size());
        lost.unit = "count";
        lost.subject = "gpus";
        std::string text;
        for (const auto& why : unreadable) text += (text.empty() ? "" : "; ") + why;
        lost.params["reasons"] = text;
        out.push_back(std::move(lost));
      }
      std::set<std::string> vbios;
      for (const auto& gpu : gpus) {
        if (!gpu.vbios.empty()) vbios.insert(gpu.vbios);
      }
      versions.params["driver"] = nvml.driver_version;
      versions.params["cuda"] = nvml_cuda_version(*nvml.api);
      versions.params["vbios"] = text::join(vbios, ",");
      versions.params["gpus"] = std::to_string(gpus.size());
    } else {
      versions.params["gpus"] = "none (" + nvml.reason + ")";
    }
    versions.params["nccl"] = nccl_library_version();
    versions.params["nccl_library"] = nccl_library_path();  // which copy this node loads
    std::set<std::string> firmware;
    for (const auto& [device, version] : hca_firmware(options.sysfs_root)) firmware.insert(version);
    versions.params["hca_firmware"] = text::join(firmware, ",");
    versions.params["rdma_core"] = rdma_core_version();
    versions.params["ofed"] = ofed_version(options.sysfs_root);
    for (auto it = versions.params.begin(); it != versions.params.end();) {
      it = it->second.empty() ? versions.params.erase(it) : std::next(it);
    }
    versions.value = static_cast<double>(versions.params.size());

    if (const int switches = nvswitch_count(options.sysfs_root); switches > 0) {
      Measurement manager;
      manager.probe = kPreflightProbe;
      manager.metric = "fabric_manager";
      manager.value = process_running("nv-fabricmanager") ? 1 : 0;
      manager.unit = "bool";
      manager.subject = "node";
      manager.params["nvswitches"] = std::to_string(switches);
      out.push_back(std::move(manager));
    }
    out.push_back(std::move(versions));

    // The rules the root judges by decide here which heavy probes this node may run.
    if (enforce && context.fitness != nullptr) {
      for (const Finding& finding : judge_preflight(out)) {
        if (finding.severity == Severity::fail)
          context.fitness->unfit_reasons.push_back(finding.message);
      }
    }
    for (Measurement& m : out) sink.emit(std::move(m));
  }

 private:
  std::function<const NvmlSession&()> nvml_;
  std::function<std::string()> cuda_;
  bool nvml_of_the_tree_;
};

// Why CUDA sees no GPU here; "" when it does, in a build without CUDA, and where
// CUDA_VISIBLE_DEVICES chooses the devices (its count is then not the node's).
std::string process_cuda_problem() {
  if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr) return "";
  const CudaAvailability cuda = cuda_availability();
  if (cuda.available || cuda.reason.rfind("built without", 0) == 0) return "";
  return cuda.reason;
}

}  // namespace

std::unique_ptr<Probe> make_preflight_probe(std::function<const NvmlSession&()> nvml,
                                            std::function<std::string()> cuda_problem) {
  return std::make_unique<PreflightProbe>(std::move(nvml), std::move(cuda_problem), true);
}

std::unique_ptr<Probe> make_preflight_probe() {
  return std::make_unique<PreflightProbe>(process_nvml, process_cuda_problem, false);
}

}  // namespace fabcheck
