// The GPU node rules: slow among peers, hot/throttled, PCIe downtrained under load, NVLink down,
// memory held by strangers, ECC and row remapping; each a finding naming the GPU with a remedy.
#include "kernels/gpu_judgement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "bench/sys/nvml_api.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "results/profile.hpp"
#include "results/robust_stats.hpp"

namespace fabcheck {
namespace {

constexpr const char* kHealthProbe = "gpu.health";
constexpr const char* kLoadProbe = "gpu.gemm";  // the heavy probe that samples telemetry under load
constexpr const char* kDcgmSource =
    "DCGM diagnostics: a GPU below a tolerance of its node peers is slow (fabcheck uses the "
    "median and MAD of the node's GPUs, results/robust_stats.hpp)";
constexpr const char* kNvmlSource = "NVML reading (nvmlDeviceGet*), judged by fabcheck's GPU rules";

// What a finding about `gpu` on `host` starts with.
Finding finding_for(const GpuNodeRecord& node, const GpuRecord& gpu, Severity severity,
                    const std::string& probe, const std::string& metric, const std::string& unit) {
  Finding f;
  f.severity = severity;
  f.probe = probe;
  f.metric = metric;
  f.subject = gpu.subject();
  f.host = node.host;
  f.unit = unit;
  f.source = kNvmlSource;
  return f;
}

std::string where(const GpuNodeRecord& node, const GpuRecord& gpu) {
  return gpu.describe() + (node.host.empty() ? std::string() : " on " + node.host);
}

// One figure compared across the node's GPUs.
struct PeerFigure {
  std::string probe;
  std::string metric;
  std::string unit;
  std::function<std::optional<double>(const GpuRecord&)> value;
  std::string remedy;
};

std::optional<double> performance(const GpuRecord& gpu, const std::string& key) {
  const auto found = gpu.performance.find(key);
  if (found == gpu.performance.end()) return std::nullopt;
  return found->second;
}

const std::vector<PeerFigure>& peer_figures() {
  static const std::string kComputeRemedy =
      "check this GPU's clocks, power limit and throttle reasons (nvidia-smi -q -d "
      "PERFORMANCE,POWER,CLOCK), reseat or replace it; a GPU this far behind its peers slows "
      "every synchronous step of a job";
  static const std::vector<PeerFigure> kFigures = {
      {"gpu.gemm", "bf16_tflops", "TFLOP/s",
       [](const GpuRecord& g) { return performance(g, "gpu.gemm/bf16_tflops"); }, kComputeRemedy},
      {"gpu.gemm", "tf32_tflops", "TFLOP/s",
       [](const GpuRecord& g) { return performance(g, "gpu.gemm/tf32_tflops"); }, kComputeRemedy},
      {"gpu.hbm_bw", "copy_bw", "GB/s",
       [](const GpuRecord& g) { return performance(g, "gpu.hbm_bw/copy_bw"); },
       "check memory clocks and ECC/row-remap state (nvidia-smi -q -d MEMORY,ECC,ROW_REMAPPER); "
       "run dcgmi diag -r 3; replace the GPU if it stays behind its peers"},
      {"gpu.hbm_bw", "triad_bw", "GB/s",
       [](const GpuRecord& g) { return performance(g, "gpu.hbm_bw/triad_bw"); },
       "check memory clocks and ECC/row-remap state (nvidia-smi -q -d MEMORY,ECC,ROW_REMAPPER); "
       "run dcgmi diag -r 3; replace the GPU if it stays behind its peers"},
      {kLoadProbe, "sm_clock_mhz", "MHz",
       [](const GpuRecord& g) -> std::optional<double> {
         if (!g.load) return std::nullopt;
         return g.load->sm_clock_mhz;
       },
       "a GPU clocking below its peers under the same load is power- or thermally limited: check "
       "its cooling (fans, airflow, inlet temperature), power limit (nvidia-smi -q -d POWER) and "
       "throttle reasons"},
  };
  return kFigures;
}

void judge_peers(const GpuNodeRecord& node, const GpuJudgementPolicy& policy,
                 std::vector<Finding>& findings) {
  OutlierPolicy outliers;  // lower is worse
  outliers.min_relative_gap = policy.slow_warn_fraction;
  outliers.fail_relative_gap = policy.slow_fail_fraction;
  for (const PeerFigure& figure : peer_figures()) {
    std::vector<const GpuRecord*> gpus;
    std::vector<double> values;
    std::string evidence;
    for (const GpuRecord& gpu : node.gpus) {
      if (const auto value = figure.value(gpu)) {
        gpus.push_back(&gpu);
        values.push_back(*value);
        evidence += fmt::format("{}{} {:.4g}", evidence.empty() ? "" : ", ", gpu.subject(), *value);
      }
    }
    // The median and MAD of the node's GPUs; one GPU has no peers, two cannot tell which is slow
    // (the slower is a WARN), a tight node raises nothing (results/robust_stats.hpp).
    const OutlierReport report = find_outliers(values, outliers);
    for (const Outlier& outlier : report.outliers) {
      const GpuRecord& gpu = *gpus[outlier.index];
      const double shortfall = -outlier.relative_gap;
      const double median = outlier.reference;
      Finding f = finding_for(node, gpu, outlier.fail ? Severity::fail : Severity::warn,
                              figure.probe, figure.metric, figure.unit);
      f.observed = outlier.value;
      f.expected = median * (1.0 - policy.slow_warn_fraction);
      f.warn_at = median * (1.0 - policy.slow_fail_fraction);
      f.message = fmt::format(
          "{}: {} {} {:.4g} {} is {:.1f}% below the {} {:.4g} {} (WARN beyond {:.0f}%, "
          "FAIL beyond {:.0f}%)",
          where(node, gpu), figure.probe, figure.metric, outlier.value, figure.unit,
          shortfall * 100, values.size() == 2 ? "other GPU's" : "node median", median, figure.unit,
          policy.slow_warn_fraction * 100, policy.slow_fail_fraction * 100);
      f.evidence = fmt::format("{} {} per GPU: {}; median {:.4g}, MAD {:.3g} over {} GPUs",
                               figure.probe, figure.metric, evidence, report.peers.median,
                               report.peers.mad, values.size());
      f.remedy = figure.remedy;
      f.source = kDcgmSource;
      findings.push_back(std::move(f));
    }
  }
}

constexpr std::uint64_t kSlowdownReasons =
    nvml_reasons::kHwSlowdown | nvml_reasons::kSwThermalSlowdown |
    nvml_reasons::kHwThermalSlowdown | nvml_reasons::kHwPowerBrakeSlowdown;

// The phase to judge a thermal state in: under load when read, else idle.
const GpuTelemetry* thermal_reading(const GpuRecord& gpu) {
  auto slowing = [](const std::optional<GpuTelemetry>& t) {
    return t && t->clock_event_reasons && (*t->clock_event_reasons & kSlowdownReasons) != 0;
  };
  if (slowing(gpu.load)) return &*gpu.load;
  if (slowing(gpu.idle)) return &*gpu.idle;
  if (gpu.load) return &*gpu.load;
  if (gpu.idle) return &*gpu.idle;
  return nullptr;
}

std::string telemetry_evidence(const GpuTelemetry& t) {
  std::string out = fmt::format("NVML {} reading:", to_string(t.phase));
  if (t.temperature_c) out += fmt::format(" temperature {:.0f} C", *t.temperature_c);
  if (t.sm_clock_mhz) {
    out += fmt::format(", SM clock {:.0f} MHz", *t.sm_clock_mhz);
    if (t.sm_clock_max_mhz) out += fmt::format(" of {:.0f}", *t.sm_clock_max_mhz);
  }
  if (t.power_w) {
    out += fmt::format(", power {:.0f} W", *t.power_w);
    if (t.power_limit_w) out += fmt::format(" of {:.0f}", *t.power_limit_w);
  }
  if (t.clock_event_reasons) {
    out += fmt::format(", clock event reasons 0x{:x} ({})", *t.clock_event_reasons,
                       describe_clock_event_reasons(*t.clock_event_reasons));
  }
  return out;
}

void judge_thermal(const GpuNodeRecord& node, const GpuRecord& gpu,
                   const GpuJudgementPolicy& policy, std::vector<Finding>& findings) {
  const GpuTelemetry* t = thermal_reading(gpu);
  if (t == nullptr) return;
  const std::uint64_t reasons = t->clock_event_reasons.value_or(0);
  const std::string probe = t->phase == TelemetryPhase::load ? kLoadProbe : kHealthProbe;
  if ((reasons & kSlowdownReasons) != 0) {
    Finding f = finding_for(node, gpu, Severity::fail, probe, "clock_event_reasons", "count");
    f.observed = static_cast<double>(reasons);
    const bool thermal =
        (reasons & (nvml_reasons::kSwThermalSlowdown | nvml_reasons::kHwThermalSlowdown)) != 0;
    f.message = fmt::format(
        "{}: clocks held down by {} ({}){}", where(node, gpu),
        thermal ? "thermal slowdown" : "hardware slowdown", describe_clock_event_reasons(reasons),
        t->temperature_c ? fmt::format(" at {:.0f} C", *t->temperature_c) : std::string());
    f.evidence = telemetry_evidence(*t);
    f.remedy = thermal ? "check the GPU's cooling: fans, airflow, inlet temperature, heatsink "
                         "contact; drain the node until the GPU runs below its slowdown "
                         "temperature under load"
                       : "hardware slowdown or power brake is asserted by the board or the "
                         "power supply: check PSUs and the BMC event log; drain the node";
    findings.push_back(std::move(f));
    return;
  }
  if (t->temperature_c && *t->temperature_c >= policy.hot_warn_c) {
    Finding f = finding_for(node, gpu, Severity::warn, probe, "temperature_c", "C");
    f.observed = *t->temperature_c;
    f.expected = policy.hot_warn_c;
    f.message =
        fmt::format("{}: {:.0f} C {}, near the slowdown temperature (WARN from {:.0f} C)",
                    where(node, gpu), *t->temperature_c,
                    t->phase == TelemetryPhase::load ? "under load" : "at rest", policy.hot_warn_c);
    f.evidence = telemetry_evidence(*t);
    f.remedy = "check the GPU's cooling (fans, airflow, inlet temperature) before it throttles";
    findings.push_back(std::move(f));
  }
}

void judge_pcie(const GpuNodeRecord& node, const GpuRecord& gpu, std::vector<Finding>& findings) {
  auto describe = [](const GpuTelemetry& t) {
    return fmt::format("PCIe Gen{} x{} of max Gen{} x{} ({})", t.pcie_gen.value_or(0),
                       t.pcie_width.value_or(0), t.pcie_gen_max.value_or(0),
                       t.pcie_width_max.value_or(0), to_string(t.phase));
  };
  // Under load both generation and width must be at their max. At rest the GPU lowers its link
  // generation to save power, so only a narrower link means something there.
  if (gpu.load) {
    const GpuTelemetry& t = *gpu.load;
    const bool slow_gen = t.pcie_gen && t.pcie_gen_max && *t.pcie_gen < *t.pcie_gen_max;
    const bool narrow = t.pcie_width && t.pcie_width_max && *t.pcie_width < *t.pcie_width_max;
    if (slow_gen || narrow) {
      Finding f = finding_for(node, gpu, Severity::fail, kLoadProbe,
                              slow_gen ? "pcie_gen" : "pcie_width", "count");
      f.observed = static_cast<double>(slow_gen ? *t.pcie_gen : *t.pcie_width);
      f.expected = static_cast<double>(slow_gen ? *t.pcie_gen_max : *t.pcie_width_max);
      f.message =
          fmt::format("{}: PCIe link downtrained under load: Gen{} x{} where Gen{} x{} is max",
                      where(node, gpu), t.pcie_gen.value_or(0), t.pcie_width.value_or(0),
                      t.pcie_gen_max.value_or(0), t.pcie_width_max.value_or(0));
      f.evidence = "NVML " + describe(t);
      f.remedy =
          "reseat the GPU or its riser/cable, check the slot's BIOS link settings and "
          "AER errors (lspci -vv); host<->device copies run at the lower link's rate";
      findings.push_back(std::move(f));
      return;
    }
  }
  if (gpu.idle) {
    const GpuTelemetry& t = *gpu.idle;
    if (t.pcie_width && t.pcie_width_max && *t.pcie_width < *t.pcie_width_max) {
      Finding f = finding_for(node, gpu, Severity::warn, kHealthProbe, "pcie_width", "count");
      f.observed = static_cast<double>(*t.pcie_width);
      f.expected = static_cast<double>(*t.pcie_width_max);
      f.message = fmt::format("{}: PCIe link x{} at rest where x{} is max (confirm under load)",
                              where(node, gpu), *t.pcie_width, *t.pcie_width_max);
      f.evidence = "NVML " + describe(t);
      f.remedy =
          "run gpu.gemm or gpu.h2d to read the link under load; reseat the GPU if the "
          "width stays below max";
      findings.push_back(std::move(f));
    }
  }
}

// The reading that says most about a standing condition: at rest when read, else under load.
const GpuTelemetry* standing_reading(const GpuRecord& gpu) {
  if (gpu.idle) return &*gpu.idle;
  if (gpu.load) return &*gpu.load;
  return nullptr;
}

// NVLink: links that are down while others are up (on the GPU, or on its node: a GPU with none
// active among peers with active links), or fewer active than the profile expects. A GPU whose
// links are all down on a node where no GPU has one up (a PCIe card, a one-GPU slice, a VM
// without NVLink) is judged only when the profile says the node has NVLink.
void judge_nvlink(const GpuNodeRecord& node, const GpuRecord& gpu, const GpuJudgementPolicy& policy,
                  std::vector<Finding>& findings) {
  const auto active_links = [](const GpuTelemetry& t) {
    return *t.nvlink_links - static_cast<int>(t.nvlink_inactive.size());
  };
  int peers_with_active = 0;
  for (const GpuRecord& other : node.gpus) {
    if (&other == &gpu) continue;
    const GpuTelemetry* t = standing_reading(other);
    if (t != nullptr && t->nvlink_links && active_links(*t) > 0) ++peers_with_active;
  }
  for (const auto* t : {gpu.idle ? &*gpu.idle : nullptr, gpu.load ? &*gpu.load : nullptr}) {
    if (t == nullptr || !t->nvlink_links) continue;
    const int active = active_links(*t);
    const bool some_down = !t->nvlink_inactive.empty();
    const bool partly_up = some_down && active > 0;
    const bool alone_down = some_down && active == 0 && peers_with_active > 0;
    const bool below_profile = policy.expected_nvlinks && active < *policy.expected_nvlinks;
    if (!partly_up && !alone_down && !below_profile) continue;
    std::string links;
    for (int link : t->nvlink_inactive) {
      links += (links.empty() ? "" : ",") + (link < 0 ? std::string("?") : std::to_string(link));
    }
    Finding f = finding_for(node, gpu, Severity::fail,
                            t->phase == TelemetryPhase::load ? kLoadProbe : kHealthProbe,
                            "nvlink_inactive", "count");
    f.observed = static_cast<double>(t->nvlink_inactive.size());
    f.expected = 0;
    std::string why;
    if (below_profile) {
      why = fmt::format("; the profile expects {} active (gpu_nvlinks)", *policy.expected_nvlinks);
    } else if (alone_down) {
      why = fmt::format("; {} other GPU(s) of this node have active links", peers_with_active);
    }
    f.message = fmt::format("{}: {} of {} NVLink links active{}{}", where(node, gpu), active,
                            *t->nvlink_links,
                            links.empty() ? std::string() : " (inactive: link " + links + ")", why);
    f.evidence = fmt::format("NVML nvmlDeviceGetNvLinkState ({}): {} links, inactive {}",
                             to_string(t->phase), *t->nvlink_links, links.empty() ? "none" : links);
    f.remedy =
        "check nvidia-smi nvlink -s and the fabric manager (systemctl status "
        "nvidia-fabricmanager); reset the GPU or reboot; GPU-to-GPU traffic falls back to "
        "PCIe or fails";
    findings.push_back(std::move(f));
    return;
  }
}

void judge_memory(const GpuNodeRecord& node, const GpuRecord& gpu, const GpuJudgementPolicy& policy,
                  std::vector<Finding>& findings) {
  const GpuTelemetry* t = standing_reading(gpu);
  if (t == nullptr || !t->foreign_memory_gb) return;
  const double held = *t->foreign_memory_gb;
  if (held < policy.foreign_memory_warn_gb) return;
  const Severity severity = held >= policy.foreign_memory_fail_gb ? Severity::fail : Severity::warn;
  Finding f = finding_for(node, gpu, severity, kHealthProbe, "foreign_memory_gb", "GB");
  f.observed = held;
  f.expected = policy.foreign_memory_warn_gb;
  f.warn_at = policy.foreign_memory_fail_gb;
  f.message = fmt::format("{}: {:.1f} GB of GPU memory already held by other processes ({})",
                          where(node, gpu), held,
                          t->foreign_pids.empty() ? "pids unknown" : t->foreign_pids);
  f.evidence = fmt::format("NVML compute processes ({}): {}{}", to_string(t->phase),
                           t->foreign_pids.empty() ? "?" : t->foreign_pids,
                           t->memory_total_gb
                               ? fmt::format("; {:.1f} of {:.1f} GB used",
                                             t->memory_used_gb.value_or(0), *t->memory_total_gb)
                               : std::string());
  f.remedy =
      "a job starting here may run out of memory: find the processes (nvidia-smi "
      "--query-compute-apps=pid,used_memory --format=csv), end the stale ones or drain "
      "the node";
  findings.push_back(std::move(f));
}

void judge_memory_errors(const GpuNodeRecord& node, const GpuRecord& gpu,
                         std::vector<Finding>& findings) {
  const GpuTelemetry* t = standing_reading(gpu);
  if (t == nullptr) return;
  auto add = [&](const char* metric, double observed, const std::string& what, const char* remedy) {
    Finding f = finding_for(node, gpu, Severity::fail, kHealthProbe, metric, "count");
    f.observed = observed;
    f.expected = 0;
    f.message = where(node, gpu) + ": " + what;
    f.evidence = fmt::format("NVML {} reading: {} = {:g}", to_string(t->phase), metric, observed);
    f.remedy = remedy;
    findings.push_back(std::move(f));
  };
  if (t->ecc_uncorrected_volatile && *t->ecc_uncorrected_volatile > 0) {
    add("ecc_uncorrected_volatile", *t->ecc_uncorrected_volatile,
        fmt::format("{:g} uncorrectable ECC errors since the driver loaded",
                    *t->ecc_uncorrected_volatile),
        "drain the node, reset the GPU (nvidia-smi -r) and run dcgmi diag -r 3; replace the GPU "
        "if errors return");
  }
  if (t->retired_pages_pending.value_or(false)) {
    add("retired_pages_pending", 1, "page retirement pending until the GPU is reset",
        "drain the node and reset the GPU (or reboot) so the retired pages take effect");
  }
  if (t->remapped_rows_pending.value_or(false)) {
    add("remapped_rows_pending", 1, "row remap pending until the GPU is reset",
        "drain the node and reset the GPU (nvidia-smi -r, or reboot) so the remapped rows take "
        "effect; until then the faulty row is still in use");
  }
  if (t->row_remap_failure.value_or(false)) {
    add("row_remap_failure", 1, "row remapping failed: no spare rows left in a bank",
        "replace the GPU (RMA): it cannot remap further memory faults");
  }
}

}  // namespace

std::vector<Finding> judge_gpu_node(const GpuNodeRecord& node, const GpuJudgementPolicy& policy) {
  std::vector<Finding> findings;
  judge_peers(node, policy, findings);
  for (const GpuRecord& gpu : node.gpus) {
    judge_thermal(node, gpu, policy, findings);
    judge_pcie(node, gpu, findings);
    judge_nvlink(node, gpu, policy, findings);
    judge_memory(node, gpu, policy, findings);
    judge_memory_errors(node, gpu, findings);
  }
  return findings;
}

NodeSettingCatalog gpu_node_settings() {
  return {{"gpu_nvlinks",
           "active NVLinks every GPU must have, e.g. 18 for H100/H200 SXM, 12 for A100 SXM; "
           "absent: a GPU is judged by its own and its peers' links"}};
}

GpuJudgementPolicy gpu_policy_from(const Profile& profile) {
  GpuJudgementPolicy policy;
  const auto found = profile.node.find("gpu_nvlinks");
  if (found == profile.node.end()) return policy;
  const std::string& text = found->second;
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 0 || value > 64) {
    refuse_node_setting(profile, "gpu_nvlinks", "a whole number 0..64");
  }
  policy.expected_nvlinks = static_cast<int>(value);
  return policy;
}

std::vector<std::pair<std::string, std::string>> gpu_figures_judged_among_peers() {
  std::vector<std::pair<std::string, std::string>> figures;
  for (const PeerFigure& figure : peer_figures()) figures.emplace_back(figure.probe, figure.metric);
  return figures;
}

std::vector<FigureRef> gpu_judge_reads() {
  std::vector<FigureRef> reads;
  for (const MetricSpec& telemetry : telemetry_metric_specs())
    reads.push_back({"gpu.*", telemetry.name});
  for (const auto& [probe, metric] : gpu_figures_judged_among_peers()) {
    if (!is_telemetry_metric(metric)) reads.push_back({probe, metric});
  }
  return reads;
}

std::vector<Finding> judge_gpu_measurements(const std::vector<Measurement>& measurements,
                                            const GpuJudgementPolicy& policy) {
  std::vector<Finding> findings;
  // Only the figures it declares (gpu_judge_reads): a GPU seen in no other figure of the run
  // (gpu.h2d, gpu.launch_latency) makes no record, so the judge finds the same given only those.
  const auto figures = gpu_figures_judged_among_peers();
  for (const GpuNodeRecord& node : gpu_nodes_from_measurements(measurements, &figures)) {
    for (Finding& finding : judge_gpu_node(node, policy)) findings.push_back(std::move(finding));
  }
  return findings;
}

}  // namespace fabcheck
