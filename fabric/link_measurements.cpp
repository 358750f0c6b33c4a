// Fabric state (PCIe links, IB ports, counter changes) as Measurement records, and their metrics.
#include "fabric/link_measurements.hpp"

#include <algorithm>
#include <cstdio>

#include "fabric/ib_counters.hpp"

namespace fabcheck {

namespace {

MetricSpec count_metric(const char* name, Better better) {
  return {name, MetricInfo{"count", better}};
}

}  // namespace

std::vector<MetricSpec> pcie_link_metrics() {
  std::vector<MetricSpec> metrics;
  for (const char* kind : {"gpu", "hca", "nic", "nvme"}) {
    metrics.push_back(count_metric((std::string(kind) + "_link_gen").c_str(), Better::higher));
    metrics.push_back(count_metric((std::string(kind) + "_link_width").c_str(), Better::higher));
  }
  for (const char* name : {"link_gen_deficit", "link_width_deficit", "idle_link_gen_deficit",
                           "aer_correctable", "aer_nonfatal", "aer_fatal"}) {
    metrics.push_back(count_metric(name, Better::lower));
  }
  return metrics;
}

std::vector<MetricSpec> ib_port_metrics() {
  return {count_metric("active_ports", Better::higher),
          count_metric("port_active", Better::higher),
          {"port_rate", MetricInfo{"Gb/s", Better::higher}},
          count_metric("saturated_counters", Better::lower)};
}

std::vector<MetricSpec> ib_counter_metrics() {
  return {count_metric("error_counter_delta", Better::lower),
          count_metric("congestion_counter_delta", Better::lower)};
}

std::vector<Measurement> pcie_link_measurements(const std::vector<PcieLinkState>& links,
                                                bool gpus_under_load) {
  std::vector<Measurement> out;
  for (const auto& link : links) {
    std::string kind = to_string(link.kind);
    auto with_params = [&](Measurement m) {
      m.params["kind"] = kind;
      m.params["upstream_port"] = link.upstream_port.empty() ? "root" : link.upstream_port;
      if (!link.driver.empty()) m.params["driver"] = link.driver;
      m.params["vendor"] = link.vendor;
      m.params["device"] = link.device;
      if (link.has_link_state()) {
        m.params["current"] = link.describe().substr(0, link.describe().find(" (max"));
        m.params["max"] =
            "Gen" + std::to_string(link.max_gen()) + " x" + std::to_string(*link.max_width);
        m.params["max_gen"] = std::to_string(link.max_gen());
        m.params["max_width"] = std::to_string(*link.max_width);
      }
      if (link.kind == PcieDeviceKind::gpu) m.params["load"] = gpus_under_load ? "loaded" : "idle";
      return m;
    };
    if (!link.has_link_state()) {
      Measurement m =
          with_params(make_measurement(kPcieLinksProbe, kind + "_link_gen", 0, "count", link.bdf));
      m.status = MeasurementStatus::waived;
      m.message =
          link.bdf + " (" + kind + "): no PCIe link state in sysfs (virtual or legacy PCI device)";
      out.push_back(std::move(m));
      continue;
    }
    std::string where = link.bdf + " (" + kind + ", upstream port " +
                        (link.upstream_port.empty() ? "root complex" : link.upstream_port) + ")";
    bool idle_gpu = link.kind == PcieDeviceKind::gpu && !gpus_under_load;
    if (!idle_gpu) {  // an idle GPU's generation says nothing; its deficit is informational
      out.push_back(with_params(make_measurement(kPcieLinksProbe, kind + "_link_gen",
                                                 link.current_gen(), "count", link.bdf)));
    }
    out.push_back(with_params(make_measurement(kPcieLinksProbe, kind + "_link_width",
                                               *link.current_width, "count", link.bdf)));
    int gen_deficit = std::max(0, link.max_gen() - link.current_gen());
    int width_deficit = std::max(0, *link.max_width - *link.current_width);
    Measurement gen = with_params(
        make_measurement(kPcieLinksProbe, idle_gpu ? "idle_link_gen_deficit" : "link_gen_deficit",
                         gen_deficit, "count", link.bdf));
    if (gen_deficit > 0) {
      gen.message =
          where + " at " + link.describe() +
          (idle_gpu ? "; read while idle, when GPUs lower their link speed by design" : "");
    }
    out.push_back(std::move(gen));
    Measurement width = with_params(
        make_measurement(kPcieLinksProbe, "link_width_deficit", width_deficit, "count", link.bdf));
    if (width_deficit > 0) width.message = where + " at " + link.describe();
    out.push_back(std::move(width));
    auto aer = [&](const char* metric, const std::optional<std::uint64_t>& total) {
      if (total) {
        out.push_back(with_params(make_measurement(
            kPcieLinksProbe, metric, static_cast<double>(*total), "count", link.bdf)));
      }
    };
    aer("aer_correctable", link.aer_correctable);
    aer("aer_nonfatal", link.aer_nonfatal);
    aer("aer_fatal", link.aer_fatal);
  }
  return out;
}

std::vector<Measurement> ib_port_measurements(const std::vector<IbPortState>& ports) {
  std::vector<Measurement> out;
  int active = 0;
  for (const auto& port : ports) {
    auto with_params = [&](Measurement m) {
      m.params["state"] = port.state ? port.state->name : "unknown";
      m.params["phys_state"] = port.phys_state ? port.phys_state->name : "unknown";
      m.params["link_layer"] = port.link_layer;
      m.params["rate"] = port.rate_text;
      m.params["pci_bdf"] = port.pci_bdf;
      if (!port.model.empty()) m.params["hca_model"] = port.model;
      return m;
    };
    if (port.active()) ++active;
    Measurement state = with_params(make_measurement(
        kIbPortsProbe, "port_active", port.active() ? 1 : 0, "count", port.subject()));
    if (!port.active()) {
      state.message =
          port.subject() + " (" + port.pci_bdf + ") state " +
          (port.state ? std::to_string(port.state->code) + ": " + port.state->name
                      : std::string("unreadable")) +
          ", physical state " +
          (port.phys_state ? std::to_string(port.phys_state->code) + ": " + port.phys_state->name
                           : std::string("unreadable"));
    }
    out.push_back(std::move(state));
    if (port.rate_gbps) {
      Measurement rate = with_params(
          make_measurement(kIbPortsProbe, "port_rate", *port.rate_gbps, "Gb/s", port.subject()));
      rate.message = port.subject() + " (" + port.pci_bdf + ") rate " + port.rate_text;
      out.push_back(std::move(rate));
    }
    auto stuck = saturated_counters(port.counters);
    Measurement saturated =
        with_params(make_measurement(kIbPortsProbe, "saturated_counters",
                                     static_cast<double>(stuck.size()), "count", port.subject()));
    for (const auto& key : stuck) {
      saturated.params[key] = std::to_string(port.counters.at(key));
      saturated.message += (saturated.message.empty() ? port.subject() + ": " : ", ") + key +
                           " stuck at its maximum " + std::to_string(port.counters.at(key));
    }
    out.push_back(std::move(saturated));
  }
  Measurement count = make_measurement(kIbPortsProbe, "active_ports", active, "count", "node");
  count.params["ports"] = std::to_string(ports.size());
  out.push_back(std::move(count));
  if (ports.empty()) {
    Measurement none = make_measurement(kIbPortsProbe, "port_active", 0, "count", "rdma");
    none.status = MeasurementStatus::waived;
    none.message = "no RDMA device (nothing in /sys/class/infiniband)";
    out.push_back(std::move(none));
  }
  return out;
}

std::vector<Measurement> ib_counter_measurements(
    const std::map<std::string, CounterSnapshot>& before,
    const std::map<std::string, CounterSnapshot>& after, double interval_s) {
  std::vector<Measurement> out;
  for (const auto& [subject, after_counters] : after) {
    auto it = before.find(subject);
    if (it == before.end()) continue;
    auto changes = error_counter_changes(it->second, after_counters);
    double total = 0;
    Measurement m = make_measurement(kIbCountersProbe, "error_counter_delta", 0, "count", subject);
    char interval[32];
    std::snprintf(interval, sizeof interval, "%.1f", interval_s);
    m.params["interval_s"] = interval;
    for (const auto& change : changes) {
      total += static_cast<double>(change.delta);
      std::string what = change.reset ? "reset (" + std::to_string(change.before) + " -> " +
                                            std::to_string(change.after) + ")"
                         : change.saturated ? "+" + std::to_string(change.delta) +
                                                  ", saturated at " + std::to_string(change.after)
                                            : "+" + std::to_string(change.delta);
      m.params[change.key] = what;
      m.message += (m.message.empty() ? subject + ": " : ", ") + change.key + " " + what;
    }
    m.value = total;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> ib_counter_growth(const std::map<std::string, CounterSnapshot>& before,
                                           const std::map<std::string, CounterSnapshot>& after,
                                           double interval_s) {
  std::vector<Measurement> out;
  for (Measurement& m : ib_counter_measurements(before, after, interval_s)) {
    if (!m.message.empty()) out.push_back(std::move(m));
  }
  for (const auto& [subject, after_counters] : after) {
    auto it = before.find(subject);
    if (it == before.end()) continue;
    const auto changes = congestion_counter_changes(it->second, after_counters);
    if (changes.empty()) continue;
    Measurement m =
        make_measurement(kIbCountersProbe, "congestion_counter_delta", 0, "count", subject);
    char interval[32];
    std::snprintf(interval, sizeof interval, "%.1f", interval_s);
    m.params["interval_s"] = interval;
    double total = 0;
    for (const auto& change : changes) {
      total += static_cast<double>(change.delta);
      m.params[change.key] = "+" + std::to_string(change.delta);
      m.message += (m.message.empty() ? subject + ": " : ", ") + change.key + " +" +
                   std::to_string(change.delta);
    }
    m.value = total;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> sysfs_problem_measurements(const char* probe, const char* metric,
                                                    const std::vector<SysfsProblem>& problems) {
  std::vector<Measurement> out;
  for (const SysfsProblem& problem : problems) {
    Measurement m = make_measurement(probe, metric, 0, "count", problem.path);
    m.status = MeasurementStatus::error;
    m.message = problem.describe() + "; the value cannot be judged, so this node is not passed";
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> pcie_link_records(const std::vector<PcieLinkState>& links,
                                           bool gpus_under_load,
                                           const std::vector<SysfsProblem>& problems) {
  std::vector<Measurement> out = pcie_link_measurements(links, gpus_under_load);
  std::erase_if(out, [&](const Measurement& m) {
    return m.status == MeasurementStatus::waived &&
           std::any_of(problems.begin(), problems.end(), [&](const SysfsProblem& problem) {
             return problem.path.find("/" + m.subject + "/") != std::string::npos;
           });
  });
  for (auto& m : sysfs_problem_measurements(kPcieLinksProbe, "link_width_deficit", problems))
    out.push_back(std::move(m));
  return out;
}

std::vector<Measurement> ib_port_records(const std::vector<IbPortState>& ports,
                                         const std::vector<SysfsProblem>& problems) {
  std::vector<Measurement> out;
  if (problems.empty() || !ports.empty()) out = ib_port_measurements(ports);
  if (!problems.empty()) {
    std::erase_if(out, [](const Measurement& m) {
      return m.status == MeasurementStatus::waived || m.metric == "active_ports";
    });
  }
  for (auto& m : sysfs_problem_measurements(kIbPortsProbe, "port_active", problems))
    out.push_back(std::move(m));
  return out;
}

}  // namespace fabcheck
