// Judges fabric measurements (PCIe links, IB ports, counter changes) into findings with evidence.
#include "fabric/fabric_judge.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "fabric/link_measurements.hpp"
#include "results/evaluator.hpp"
#include "results/robust_stats.hpp"

namespace fabcheck {

namespace {

// A finding about a fabric measurement; its message is the evidence (the sysfs reading).
Finding finding_for(const Measurement& m, Severity severity) {
  Finding f = finding_about(m, severity);
  f.evidence = m.message;
  return f;
}

const PcieExpectation* expectation_for(const std::string& kind, const FabricExpectations& e) {
  if (kind == "gpu") return &e.gpu;
  if (kind == "hca") return &e.hca;
  if (kind == "nic") return &e.nic;
  if (kind == "nvme") return &e.nvme;
  return nullptr;
}

std::string device_words(const Measurement& m) {
  std::string upstream = param_of(m, "upstream_port");
  return m.subject + " (" + param_of(m, "kind") + ", upstream port " +
         (upstream == "root" ? std::string("root complex") : upstream) + ")";
}

constexpr const char* kLinkRemedy =
    "reseat the device or its riser/cable, check the slot and the upstream port's own link, "
    "update firmware; a link trained down costs bandwidth on every transfer";

void judge_pcie(const Measurement& m, const FabricExpectations& e, std::vector<Finding>& out) {
  std::string kind = param_of(m, "kind");
  const std::string& metric = m.metric;
  bool idle_gpu = param_of(m, "load") == "idle";
  if ((metric == "link_width_deficit" || metric == "link_gen_deficit") && m.value > 0) {
    Finding f = finding_for(m, Severity::fail);
    f.expected = 0;
    // Speed and width are judged apart (one finding each), so each message says which fell short.
    f.message = device_words(m) + (metric == "link_gen_deficit" ? " link speed" : " link width") +
                " below its maximum: " + param_of(m, "current") + ", max " + param_of(m, "max");
    f.remedy = kLinkRemedy;
    out.push_back(std::move(f));
  } else if (metric == "idle_link_gen_deficit" && m.value > 0) {
    Finding f = finding_for(m, Severity::pass);
    f.message = device_words(m) + " at " + param_of(m, "current") + " (max " + param_of(m, "max") +
                ") read while idle: informational, GPUs lower their link generation at idle";
    f.remedy = "re-read under load (e.g. after gpu.h2d) to judge the generation";
    out.push_back(std::move(f));
  } else if (metric.size() > 9 && metric.compare(metric.size() - 9, 9, "_link_gen") == 0) {
    // Below its own max is reported by link_gen_deficit; this is for a device whose max is short.
    const PcieExpectation* want = expectation_for(kind, e);
    bool at_max = m.value >= std::stod("0" + param_of(m, "max_gen"));
    if (want && want->gen > 0 && m.value < want->gen && !idle_gpu && at_max) {
      Finding f = finding_for(m, Severity::fail);
      f.expected = want->gen;
      f.message = device_words(m) + " at " + param_of(m, "current") + " below the expected Gen" +
                  std::to_string(want->gen) + " (max " + param_of(m, "max") + ")";
      f.remedy = kLinkRemedy;
      out.push_back(std::move(f));
    }
  } else if (metric.size() > 11 && metric.compare(metric.size() - 11, 11, "_link_width") == 0) {
    const PcieExpectation* want = expectation_for(kind, e);
    bool at_max = m.value >= std::stod("0" + param_of(m, "max_width"));
    if (want && want->width > 0 && m.value < want->width && at_max) {
      Finding f = finding_for(m, Severity::fail);
      f.expected = want->width;
      f.message = device_words(m) + " at " + param_of(m, "current") + " below the expected x" +
                  std::to_string(want->width) + " (max " + param_of(m, "max") + ")";
      f.remedy = kLinkRemedy;
      out.push_back(std::move(f));
    }
  } else if ((metric == "aer_fatal" || metric == "aer_nonfatal") && m.value > 0) {
    Finding f = finding_for(m, metric == "aer_fatal" ? Severity::fail : Severity::warn);
    f.expected = 0;
    f.message = device_words(m) + " logged " + std::to_string(static_cast<long long>(m.value)) +
                (metric == "aer_fatal" ? " fatal" : " non-fatal") +
                " uncorrectable PCIe errors (AER)";
    f.remedy = "check dmesg for AER reports on this BDF and its upstream port; reseat or replace";
    out.push_back(std::move(f));
  }
}

void judge_ib_ports(const Measurement& m, const FabricExpectations& e, std::vector<Finding>& out) {
  if (m.metric == "active_ports") {
    if (e.ib_ports && *e.ib_ports > 0 && m.value < *e.ib_ports) {
      Finding f = finding_for(m, Severity::fail);
      f.expected = *e.ib_ports;
      std::string total = param_of(m, "ports");
      f.message =
          (total == "0" ? std::string("no RDMA device on a node that expects ") +
                              std::to_string(*e.ib_ports) + " active ports"
                        : std::to_string(static_cast<int>(m.value)) + " of " + total +
                              " RDMA ports active, " + std::to_string(*e.ib_ports) + " expected");
      f.remedy = total == "0" ? "check the HCAs are seen (lspci), the mlx5_core/mlx5_ib and "
                                "ib_uverbs modules are loaded, and rdma-core is installed"
                              : "check cables, switch ports and the subnet manager (ibstat)";
      out.push_back(std::move(f));
    }
  } else if (m.metric == "port_active" && m.status == MeasurementStatus::ok && m.value < 1) {
    Finding f = finding_for(m, Severity::fail);
    f.expected = 1;
    f.message = m.message.empty() ? m.subject + " is not active" : m.message;
    f.remedy = "check the cable and switch port; ibstat, and the subnet manager for a port in INIT";
    out.push_back(std::move(f));
  } else if (m.metric == "port_rate" && e.ib_rate_gbps > 0 && m.value < e.ib_rate_gbps) {
    Finding f = finding_for(m, Severity::fail);
    f.expected = e.ib_rate_gbps;
    f.message = m.message + ", below the expected " +
                std::to_string(static_cast<int>(e.ib_rate_gbps)) + " Gb/s";
    f.remedy =
        "a port at a lower rate or width trained down: check the cable (mlxlink), the "
        "switch port and the HCA firmware";
    out.push_back(std::move(f));
  } else if (m.metric == "saturated_counters" && m.value > 0) {
    Finding f = finding_for(m, Severity::warn);
    f.expected = 0;
    f.message = m.message + "; new errors on it can no longer be seen";
    f.remedy =
        "find out why it counted so far (cable, port), then clear the counters "
        "(perfquery -x -R)";
    out.push_back(std::move(f));
  }
}

void judge_ib_counters(const Measurement& m, std::vector<Finding>& out) {
  // Readings around one heavy probe carry it in "during"; fabric.ib_counters' own cover the run.
  const std::string during = param_of(m, "during");
  const std::string when = during.empty()
                               ? "during the run over " + param_of(m, "interval_s") + " s"
                               : "during " + during + " (" + param_of(m, "interval_s") + " s)";
  if (m.metric == "congestion_counter_delta" && m.value > 0) {
    Finding f = finding_for(m, Severity::warn);
    f.expected = 0;
    f.message = "RoCE congestion " + when + ": " + m.message;
    f.remedy =
        "the fabric marked or paced this port's traffic: check the switches' ECN/PFC settings and "
        "buffers, and whether other jobs shared the links; a single port congested alone points "
        "at its switch port";
    out.push_back(std::move(f));
  }
  if (m.metric == "error_counter_delta" && m.value > 0) {
    Finding f = finding_for(m, Severity::fail);
    f.expected = 0;
    f.message = "error counters grew " + when + ": " + m.message +
                (during.empty() ? "" : "; the probe's own figures may still have passed");
    f.remedy =
        "symbol errors and link recoveries point at the cable or transceiver; receive "
        "errors and discards at the link or congestion; check with mlxlink / ibqueryerrors";
    out.push_back(std::move(f));
  }
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Siblings: the same kind of thing on the same host, of the same model.
using SiblingKey = std::tuple<std::string, std::string, std::string>;  // host, kind, model

// Each group's values judged against their own median (results/robust_stats.hpp); an outlier on
// the low side is a FAIL (a WARN with only two siblings) naming the siblings it fell behind.
void judge_sibling_groups(const std::map<SiblingKey, std::vector<const Measurement*>>& groups,
                          const std::string& what, const std::set<std::string>& already_failed,
                          const std::string& remedy, std::vector<Finding>& out) {
  OutlierPolicy policy;  // lower is worse; 5 % to be named, 10 % to fail
  for (const auto& [key, members] : groups) {
    std::vector<double> values;
    for (const Measurement* m : members) values.push_back(m->value);
    const OutlierReport report = find_outliers(values, policy);
    if (report.outliers.empty()) continue;
    const auto& [host, kind, model] = key;
    std::string listing;
    for (const Measurement* m : members) {
      listing += (listing.empty() ? "" : ", ") + m->subject + " " + fmt::format("{:g}", m->value);
    }
    for (const Outlier& outlier : report.outliers) {
      const Measurement& m = *members[outlier.index];
      if (already_failed.count(m.host + "\n" + m.subject + "\n" + m.metric) > 0) continue;
      Finding f = finding_for(m, outlier.fail ? Severity::fail : Severity::warn);
      f.expected = outlier.reference;
      const std::string siblings =
          fmt::format("{} sibling {} of the same model ({}{}{})", members.size() - 1, what, kind,
                      model.empty() ? "" : " ", model);
      f.message = fmt::format(
          "{} {} {:g} is {:.0f}% below the {:g} of its {}{}; expectation inferred from its "
          "siblings",
          m.subject, m.metric, m.value, -outlier.relative_gap * 100, outlier.reference, siblings,
          host.empty() ? "" : " on " + host);
      if (!m.message.empty()) f.message += " (" + m.message + ")";
      f.evidence = m.metric + " per " + what.substr(0, what.size() - 1) + ": " + listing +
                   (m.message.empty() ? "" : "; " + m.message);
      f.source = fmt::format("inferred: median of {} {} on the same host ({:g}); {}",
                             members.size(), what, report.peers.median,
                             members.size() == 2 ? "two siblings cannot tell which is wrong, so "
                                                   "this is a WARN"
                                                 : "below it by more than 10% is a FAIL");
      f.remedy = remedy;
      out.push_back(std::move(f));
    }
  }
}

void judge_siblings(const std::vector<Measurement>& measurements, const FabricExpectations& e,
                    std::vector<Finding>& out) {
  std::set<std::string> already;  // host, subject, metric judged FAIL by the node's own rules
  for (const Finding& f : out) {
    if (f.severity != Severity::fail) continue;
    already.insert(f.host + "\n" + f.subject + "\n" + f.metric);
    if (f.metric == "link_gen_deficit" || f.metric == "link_width_deficit") {
      const std::string aspect = f.metric == "link_gen_deficit" ? "_link_gen" : "_link_width";
      for (const char* kind : {"gpu", "hca", "nic", "nvme"}) {
        already.insert(f.host + "\n" + f.subject + "\n" + kind + aspect);
      }
    }
  }
  std::set<std::pair<std::string, std::string>> inactive;  // host, port
  for (const auto& m : measurements) {
    if (m.probe == kIbPortsProbe && m.metric == "port_active" && m.value < 1) {
      inactive.emplace(m.host, m.subject);
    }
  }
  std::map<SiblingKey, std::vector<const Measurement*>> ports, gens, widths;
  for (const auto& m : measurements) {
    if (m.status != MeasurementStatus::ok) continue;
    if (m.probe == kIbPortsProbe && m.metric == "port_rate" && e.ib_rate_gbps <= 0 &&
        inactive.count({m.host, m.subject}) == 0) {
      ports[{m.host, param_of(m, "link_layer"), param_of(m, "hca_model")}].push_back(&m);
    } else if (m.probe == kPcieLinksProbe) {
      const std::string kind = param_of(m, "kind");
      const PcieExpectation* want = expectation_for(kind, e);
      const std::string model = param_of(m, "vendor") + ":" + param_of(m, "device");
      if (ends_with(m.metric, "_link_gen") && !(want && want->gen > 0)) {
        gens[{m.host, kind, model}].push_back(&m);
      } else if (ends_with(m.metric, "_link_width") && !(want && want->width > 0)) {
        widths[{m.host, kind, model}].push_back(&m);
      }
    }
  }
  judge_sibling_groups(ports, "ports", already,
                       "a port at a lower rate than its siblings trained down: check the cable "
                       "(mlxlink), the switch port and the HCA firmware",
                       out);
  judge_sibling_groups(gens, "devices", already, kLinkRemedy, out);
  judge_sibling_groups(widths, "devices", already, kLinkRemedy, out);
}

}  // namespace

std::vector<Finding> judge_fabric_measurements(const std::vector<Measurement>& measurements,
                                               const FabricExpectations& expectations) {
  std::vector<Finding> out;
  bool expects_rdma = expectations.ib_ports && *expectations.ib_ports > 0;
  for (const auto& m : measurements) {
    bool ours =
        m.probe == kPcieLinksProbe || m.probe == kIbPortsProbe || m.probe == kIbCountersProbe;
    if (!ours) continue;
    if (m.status == MeasurementStatus::waived) {
      // "No RDMA device" is a FAIL (from active_ports) where ports are expected, not a waiver.
      if (m.probe == kIbPortsProbe && expects_rdma) continue;
      Finding f = finding_for(m, Severity::waived);
      f.observed.reset();
      f.message = m.message;
      f.evidence.clear();
      out.push_back(std::move(f));
      continue;
    }
    if (m.status == MeasurementStatus::error) {
      Finding f = finding_for(m, Severity::error);
      f.observed.reset();
      f.message = m.message;
      out.push_back(std::move(f));
      continue;
    }
    if (m.probe == kPcieLinksProbe) {
      judge_pcie(m, expectations, out);
    } else if (m.probe == kIbPortsProbe) {
      judge_ib_ports(m, expectations, out);
    } else {
      judge_ib_counters(m, out);
    }
  }
  judge_siblings(measurements, expectations, out);
  return out;
}

}  // namespace fabcheck
