// Kernel log tallies, their measurements and their judgement.
#include "host/kernel_log_scan.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "host/kernel_log_line.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

constexpr std::size_t kMaxKeys = 4096;         // distinct (kind, device, code, severity)
constexpr std::size_t kMaxFlapTimes = 100000;  // per interface
constexpr std::size_t kExampleChars = 300;

std::string example_of(std::string_view source, std::size_t number, std::string_view line) {
  std::string text = std::string(source) + ":" + std::to_string(number) + ": ";
  text.append(line.substr(0, kExampleChars));
  if (line.size() > kExampleChars) text += "...";
  return text;
}

const char* metric_of(KernelEventKind kind) {
  switch (kind) {
    case KernelEventKind::xid:
      return "xid_events";
    case KernelEventKind::sxid:
      return "sxid_events";
    case KernelEventKind::aer:
      return "aer_errors";
    case KernelEventKind::pcie_limited:
      return "pcie_limited";
    default:
      return "";
  }
}

MetricSpec count_metric(const char* name) { return {name, {"count", Better::lower}}; }

std::string describe_time(const std::optional<double>& when) {
  return when ? format_utc(*when) : std::string("undated");
}

std::string xid_remedy(int xid, XidSeverity severity) {
  if (xid == 79) {
    return "the GPU fell off the PCIe bus: drain the node, check the GPU's seating, riser and "
           "power "
           "(lspci, nvidia-smi -q), then reboot; replace the GPU if it recurs";
  }
  if (xid == 48 || xid == 63 || xid == 64 || xid == 92 || xid == 94 || xid == 95) {
    return "memory errors: read nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT; reset the GPU "
           "to apply pending row remaps; RMA it when remapping failed or the errors recur";
  }
  if (xid == 74) {
    return "NVLink error: check nvidia-smi nvlink -s and -e for the link, the fabric manager and "
           "NVSwitch SXids; reset the GPU; reseat or replace the baseboard if it recurs";
  }
  if (xid == 119 || xid == 120) {
    return "GSP firmware timeout or error: reset the GPU or reboot; update the driver if it recurs";
  }
  if (severity == XidSeverity::needs_reset) {
    return "reset the GPU (nvidia-smi -r) or reboot the node before the next job";
  }
  return "a hardware or driver fault of the GPU: drain the node, reset the GPU, run DCGM diag "
         "(dcgmi diag -r 3); RMA it if the Xid recurs";
}

std::string kind_text(const Measurement& m) {
  const std::string code = param_of(m, "code");
  const std::string name = param_of(m, "name");
  return (m.metric == "xid_events" ? "Xid " : "SXid ") + code +
         (name.empty() ? "" : " (" + name + ")");
}

std::string times_text(const Measurement& m) {
  const std::string count = std::to_string(static_cast<long long>(m.value));
  const std::string first = param_of(m, "first_seen");
  const std::string last = param_of(m, "last_seen");
  if (first.empty() || first == "undated") return count + " time(s)";
  if (first == last) return count + " time(s), at " + first;
  return count + " time(s), " + first + " .. " + last;
}

void judge_one(const Measurement& m, std::vector<Finding>& out) {
  auto add = [&](Severity severity, std::string message, std::string remedy) {
    Finding f = finding_about(m, severity);
    f.expected = 0;
    f.message = std::move(message);
    f.evidence = param_of(m, "example");
    f.remedy = std::move(remedy);
    f.source = "kernel log";
    out.push_back(std::move(f));
  };
  if (m.metric == "xid_events" && m.value > 0) {
    const std::string severity = param_of(m, "severity");
    const int code = std::atoi(param_of(m, "code").c_str());
    const std::string what = "GPU " + m.subject + " logged " + kind_text(m) + " " + times_text(m);
    if (severity == "critical") {
      add(Severity::fail, what + ": a critical Xid", xid_remedy(code, XidSeverity::critical));
    } else if (severity == "needs_reset") {
      add(Severity::warn, what + ": the GPU needs a reset",
          xid_remedy(code, XidSeverity::needs_reset));
    } else {
      add(Severity::pass, what + " (usually the application's own fault)",
          "none for the node; look at the job that ran then if it recurs");
    }
  } else if (m.metric == "sxid_events" && m.value > 0) {
    const bool fatal = param_of(m, "severity") == "Fatal";
    const std::string what = "NVSwitch " + m.subject + " logged " +
                             (fatal ? "fatal " : "non-fatal ") + kind_text(m) + " " + times_text(m);
    if (fatal) {
      add(Severity::fail, what,
          "a fatal NVSwitch error degrades the NVLink fabric: reset the GPUs and switches (reboot) "
          "and check the fabric manager log; RMA the baseboard if it recurs");
    } else {
      add(Severity::warn, what,
          "watch for recurrence: non-fatal SXids on the same link again and again point at the "
          "link; check nvidia-smi nvlink -e and the fabric manager log");
    }
  } else if (m.metric == "link_flaps" && m.value > 0) {
    const std::string limit = param_of(m, "limit");
    const std::string span = param_of(m, "span_h");
    const std::string what = "link " + m.subject + " went down " +
                             std::to_string(static_cast<long long>(m.value)) + " time(s) within " +
                             span + " h (" + param_of(m, "downs_total") + " in all)";
    if (m.value > std::atof(limit.c_str())) {
      Finding f = finding_about(m, Severity::fail);
      f.expected = std::atof(limit.c_str());
      f.message = what + ", more than " + limit + ": a flapping link";
      f.evidence = param_of(m, "example");
      f.remedy =
          "a flapping link drops jobs: check the cable and transceiver (mlxlink -d <dev> -m), the "
          "switch port's counters and logs; replace the cable";
      f.source = "kernel log; more than 5 link downs in 24 h (Azure HPC health checks)";
      out.push_back(std::move(f));
    } else {
      add(Severity::pass, what, "none below the limit; watch for more");
    }
  } else if (m.metric == "pcie_limited" && m.value > 0) {
    add(Severity::fail,
        "PCIe device " + m.subject + " runs below its capability: " + param_of(m, "detail"),
        "the device trained at a lower speed or width: reseat it, check the slot, riser and "
        "BIOS PCIe settings; compare lspci -vv LnkSta with LnkCap");
  } else if (m.metric == "aer_errors" && m.value > 0) {
    const std::string severity = param_of(m, "severity");
    const std::string what =
        "PCIe device " + m.subject + " reported " + times_text(m) + " " + severity + " AER errors";
    const std::string remedy =
        "check the link with lspci -vvv and the AER counters in sysfs; reseat the device, riser or "
        "cable; drain the node when uncorrected errors recur";
    if (severity == "Uncorrected (Fatal)") {
      add(Severity::fail, what, remedy);
    } else if (severity == "Uncorrected (Non-Fatal)") {
      add(Severity::warn, what, remedy);
    } else if (m.value >= std::atof(param_of(m, "warn_at").c_str())) {
      add(Severity::warn, what + ", at or above " + param_of(m, "warn_at"), remedy);
    } else {
      add(Severity::pass, what, "none at this rate");
    }
  }
}

}  // namespace

std::size_t LinkFlapTally::most_within(double span_s) const {
  if (times.empty()) return downs;
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  std::size_t best = 0;
  std::size_t first = 0;
  for (std::size_t last = 0; last < sorted.size(); ++last) {
    while (sorted[last] - sorted[first] > span_s) ++first;
    best = std::max(best, last - first + 1);
  }
  // Downs without a time cannot be placed; they count with every window.
  return best + (downs - times.size());
}

KernelLogScan::KernelLogScan(KernelLogWindow window) : window_(window) {}

void KernelLogScan::add_line(std::string_view text, std::string_view source, std::size_t number,
                             double reference_s) {
  ++lines_;
  const KernelLogLine line = split_kernel_log_line(text, reference_s);
  std::optional<double> when = line.wall_s;
  if (!when && line.monotonic_s && window_.boot_s) when = *window_.boot_s + *line.monotonic_s;
  const bool stamped = line.wall_s || line.monotonic_s;
  if (stamped) ++recognised_;
  if (when) {
    ++dated_;
    if ((window_.since_s && *when < *window_.since_s) ||
        (window_.until_s && *when > *window_.until_s)) {
      ++outside_;
      return;
    }
    if (!first_s_ || *when < *first_s_) first_s_ = when;
    if (!last_s_ || *when > *last_s_) last_s_ = when;
  }
  auto event = classify_kernel_message(line.message);
  if (!event) return;
  if (!stamped) ++recognised_;
  ++events_;
  if (event->kind == KernelEventKind::link_up) return;
  // An Xid's severity can depend on its text (154: a reset asked for, or back to none).
  if (event->kind == KernelEventKind::xid)
    event->severity = to_string(xid_severity(event->code, event->detail));
  if (event->kind == KernelEventKind::link_down) {
    LinkFlapTally& flap = flaps_[event->device];
    ++flap.downs;
    // Undated logs still have printk's seconds since boot: good enough within one boot.
    const std::optional<double> at = when ? when : line.monotonic_s;
    if (at && flap.times.size() < kMaxFlapTimes) flap.times.push_back(*at);
    if (flap.example.empty()) flap.example = example_of(source, number, text);
    return;
  }
  const auto key = std::make_tuple(event->kind, event->device, event->code, event->severity);
  auto found = tallies_.find(key);
  if (found == tallies_.end()) {
    if (tallies_.size() >= kMaxKeys) {
      ++dropped_keys_;
      return;
    }
    KernelEventTally tally;
    tally.example = example_of(source, number, text);
    tally.event = std::move(*event);
    found = tallies_.emplace(key, std::move(tally)).first;
  }
  KernelEventTally& tally = found->second;
  ++tally.count;
  if (when) {
    if (!tally.first_s || *when < *tally.first_s) tally.first_s = when;
    if (!tally.last_s || *when > *tally.last_s) tally.last_s = when;
  }
}

std::vector<MetricSpec> kernel_log_metrics() {
  return {count_metric("xid_events"), count_metric("sxid_events"),
          count_metric("aer_errors"), count_metric("pcie_limited"),
          count_metric("link_flaps"), {"lines_scanned", {"count", Better::higher}}};
}

std::vector<Measurement> kernel_log_measurements(const KernelLogScan& scan,
                                                 const KernelLogPolicy& policy,
                                                 const std::string& source) {
  std::vector<Measurement> out;
  auto make = [](const char* metric, double value, const std::string& subject) {
    Measurement m;
    m.probe = kKernelLogProbe;
    m.metric = metric;
    m.value = value;
    m.unit = "count";
    m.subject = subject;
    return m;
  };
  for (const auto& [key, tally] : scan.tallies()) {
    const KernelEvent& event = tally.event;
    Measurement m = make(metric_of(event.kind), static_cast<double>(tally.count), event.device);
    if (m.subject.empty()) m.subject = "unknown device";
    if (event.kind == KernelEventKind::xid || event.kind == KernelEventKind::sxid) {
      m.params["code"] = std::to_string(event.code);
      std::string name =
          event.kind == KernelEventKind::xid ? std::string(xid_name(event.code)) : std::string();
      if (name.empty()) name = event.detail.substr(0, 120);
      m.params["name"] = name;
    }
    if (!event.severity.empty()) m.params["severity"] = event.severity;
    if (event.kind == KernelEventKind::aer)
      m.params["warn_at"] = std::to_string(policy.corrected_aer_warn);
    if (!event.detail.empty()) m.params["detail"] = event.detail.substr(0, 300);
    m.params["first_seen"] = describe_time(tally.first_s);
    m.params["last_seen"] = describe_time(tally.last_s);
    m.params["example"] = tally.example;
    out.push_back(std::move(m));
  }
  char span[16];
  std::snprintf(span, sizeof span, "%g", policy.flap_span_s / 3600.0);
  for (const auto& [device, flap] : scan.flaps()) {
    Measurement m =
        make("link_flaps", static_cast<double>(flap.most_within(policy.flap_span_s)), device);
    m.params["downs_total"] = std::to_string(flap.downs);
    m.params["limit"] = std::to_string(policy.flap_limit);
    m.params["span_h"] = span;
    m.params["example"] = flap.example;
    out.push_back(std::move(m));
  }
  Measurement lines = make("lines_scanned", static_cast<double>(scan.lines()), "kernel log");
  lines.params["source"] = source;
  lines.params["events"] = std::to_string(scan.events());
  lines.params["undated_lines"] = std::to_string(scan.undated_lines());
  lines.params["outside_window"] = std::to_string(scan.outside_window());
  if (scan.window().since_s) lines.params["since"] = format_utc(*scan.window().since_s);
  if (scan.window().until_s) lines.params["until"] = format_utc(*scan.window().until_s);
  if (scan.first_s()) lines.params["first_line"] = format_utc(*scan.first_s());
  if (scan.last_s()) lines.params["last_line"] = format_utc(*scan.last_s());
  if (scan.dropped_keys() > 0)
    lines.params["events_not_tallied"] = std::to_string(scan.dropped_keys());
  out.push_back(std::move(lines));
  return out;
}

std::vector<Finding> judge_kernel_log(const std::vector<Measurement>& measurements) {
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    if (m.probe != kKernelLogProbe || m.status != MeasurementStatus::ok) continue;
    judge_one(m, out);
  }
  return out;
}

}  // namespace fabcheck
