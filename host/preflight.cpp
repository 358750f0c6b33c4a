// Pre-flight rules: fitness of one node, versions across nodes.
#include "host/preflight.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

std::string gpu_name(const Measurement& m) {
  const std::string bus = param_of(m, "bus_id");
  return m.subject + (bus.empty() ? "" : " (" + bus + ")");
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

void judge_one(const Measurement& m, const PreflightPolicy& policy, std::vector<Finding>& out) {
  const FindingAdder add(m, out,
                         "pre-flight: a node is measured idle (DCGM, Azure HPC health checks)");
  if (m.metric == "foreign_processes" && m.value > 0) {
    const std::string processes = param_of(m, "processes");
    Finding f = finding_about(m, Severity::fail);
    f.expected = 0;
    f.message = "GPU " + gpu_name(m) + " is in use by another process: " +
                (processes.empty() ? "(not named by the driver)" : processes) +
                "; the node is not idle, its heavy probes are waived";
    f.evidence = "NVML compute processes: " + processes;
    f.remedy =
        "find the process (ps -fp PID, or nvidia-smi on the host when it runs in another "
        "container); end it or wait for its job; a leftover of a crashed job is killed";
    f.source = "pre-flight: a node is measured idle";
    out.push_back(std::move(f));
  } else if (m.metric == "utilization" && m.value > policy.busy_utilization_pct) {
    add(Severity::fail, policy.busy_utilization_pct,
        "GPU " + gpu_name(m) + " is busy at rest: " + number(m.value) +
            "% utilisation; its figures would mean nothing, heavy probes are waived",
        "find what runs on it (nvidia-smi, including other containers) and wait for it to end");
  } else if (m.metric == "memory_used") {
    const double total = std::atof(param_of(m, "memory_total_gb").c_str());
    const double limit = std::max(policy.held_memory_gb, policy.held_memory_fraction * total);
    if (m.value > limit) {
      add(Severity::fail, limit,
          "GPU " + gpu_name(m) + " has " + number(m.value) + " GB of memory in use at rest (over " +
              number(limit) + " GB); heavy probes are waived",
          "memory held by a process fabcheck cannot see (another container?) or leaked by a "
          "crashed job: nvidia-smi on the host; a GPU reset frees leaked memory");
    }
  } else if (m.metric == "persistence_mode" && m.value < 1) {
    add(Severity::warn, 1, "GPU " + gpu_name(m) + " has persistence mode off",
        "nvidia-smi -pm 1 or run nvidia-persistenced: without it the driver tears the GPU down "
        "between jobs, adding seconds to each start and resetting clocks");
  } else if (m.metric == "retired_pages" && m.value >= policy.retired_pages_limit) {
    add(Severity::fail, policy.retired_pages_limit,
        "GPU " + gpu_name(m) + " has retired " + number(m.value) + " pages (" + param_of(m, "sbe") +
            " single-bit, " + param_of(m, "dbe") + " double-bit), at or over the limit of " +
            number(policy.retired_pages_limit),
        "replace the GPU (RMA): its memory keeps failing");
  } else if ((m.metric == "retired_pages_pending" || m.metric == "row_remap_pending") &&
             m.value > 0) {
    add(Severity::fail, 0,
        "GPU " + gpu_name(m) +
            (m.metric == "row_remap_pending" ? " has a row remap pending"
                                             : " has a page retirement pending") +
            ": it needs a reset before it is used; heavy probes are waived",
        "reset the GPU (nvidia-smi -r -i N, with nothing running on it) or reboot the node");
  } else if (m.metric == "row_remap_failure" && m.value > 0) {
    add(Severity::fail, 0, "GPU " + gpu_name(m) + " failed to remap a memory row",
        "replace the GPU (RMA): it has run out of spare rows");
  } else if (m.metric == "unreadable_gpus" && m.value > 0) {
    add(Severity::fail, 0,
        number(m.value) + " GPU(s) cannot be read through NVML: " + param_of(m, "reasons") +
            "; heavy probes are waived",
        "a GPU NVML cannot open has usually fallen off the bus: read the kernel log for Xid 79, "
        "then reset the GPU or reboot the node");
  } else if (m.metric == "fabric_manager" && m.value < 1) {
    add(Severity::fail, 1,
        "the NVIDIA fabric manager is not running on a node with " + param_of(m, "nvswitches") +
            " NVSwitches; NVLink through them is not set up, heavy probes are waived",
        "systemctl start nvidia-fabricmanager (its version must match the driver's), then check "
        "nvidia-smi -q | grep -i fabric");
  }
}

}  // namespace

std::vector<Finding> judge_preflight(const std::vector<Measurement>& measurements,
                                     const PreflightPolicy& policy) {
  std::vector<Finding> out;
  std::map<std::string, const Measurement*> first_of_host;
  std::map<std::string, int> checks_of_host;
  for (const Measurement& m : measurements) {
    if (m.probe != kPreflightProbe || m.status != MeasurementStatus::ok) continue;
    first_of_host.emplace(m.host, &m);
    ++checks_of_host[m.host];
    judge_one(m, policy, out);
  }
  // A node that passed every check says so: its fitness was judged, not merely not found wanting.
  for (const auto& [host, first] : first_of_host) {
    const bool found =
        std::any_of(out.begin(), out.end(), [&](const Finding& f) { return f.host == host; });
    if (found) continue;
    Finding f = finding_about(*first, Severity::pass);
    f.metric = "fitness";
    f.subject = "node";
    f.observed.reset();
    f.message = host + " is fit to be measured: " + std::to_string(checks_of_host[host]) +
                " pre-flight readings, no foreign process, no busy or failing GPU";
    f.source = "pre-flight: a node is measured idle (DCGM, Azure HPC health checks)";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> judge_version_drift(const std::vector<Measurement>& measurements) {
  // key -> host -> value
  std::map<std::string, std::map<std::string, std::string>> by_key;
  std::map<std::string, const Measurement*> record_of_host;
  for (const Measurement& m : measurements) {
    if (m.probe != kPreflightProbe || m.metric != kVersionsMetric ||
        m.status != MeasurementStatus::ok)
      continue;
    record_of_host[m.host] = &m;
    for (const auto& [key, value] : m.params) {
      if (!value.empty()) by_key[key][m.host] = value;
    }
  }
  std::vector<Finding> out;
  if (record_of_host.size() < 2) return out;
  for (const auto& [key, hosts] : by_key) {
    std::map<std::string, std::vector<std::string>> hosts_of_value;
    for (const auto& [host, value] : hosts) hosts_of_value[value].push_back(host);
    if (hosts_of_value.size() < 2) continue;
    auto most = std::max_element(
        hosts_of_value.begin(), hosts_of_value.end(),
        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    for (const auto& [value, value_hosts] : hosts_of_value) {
      if (value == most->first) continue;
      for (const std::string& host : value_hosts) {
        Finding f = finding_about(*record_of_host[host], Severity::warn);
        f.observed.reset();
        f.metric = kVersionsMetric;
        f.subject = key;
        f.message = host + " runs " + key + " " + value + " while " +
                    std::to_string(most->second.size()) + " of " +
                    std::to_string(record_of_host.size()) + " hosts run " + most->first;
        f.evidence = key + ": " + value + " on " + host + "; " + most->first + " on " +
                     most->second.front() + (most->second.size() > 1 ? " and others" : "");
        f.remedy =
            "bring the node to the fleet's version (or the fleet to the node's, if newer is "
            "intended); mixed drivers, firmware or NCCL make nodes behave differently";
        f.source = "fleet peers";
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

}  // namespace fabcheck
