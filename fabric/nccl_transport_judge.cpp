// The run's judge of fabric.nccl_transport, with the host's ports and placement as evidence.
#include "fabric/nccl_transport_judge.hpp"

#include <map>
#include <utility>

#include "fabric/ib_port.hpp"
#include "fabric/link_measurements.hpp"
#include "fabric/nccl_transport_records.hpp"
#include "fabric/topology_records.hpp"
#include "results/profile.hpp"

namespace fabcheck {
namespace {

constexpr const char* kTransportProbe = "fabric.nccl_transport";
// The evidence of the node it reads beside (nccl_node_evidence).
constexpr const char* kActivePortsMetric = "active_ports";
constexpr const char* kHcaHopsMetric = "nearest_hca_hops";
// NVML's count of a GPU's NVLinks, whichever probe sampled the GPU's telemetry (the GPU family's:
// read by its metric alone, families never name each other's probes).
constexpr const char* kNvlinkLinksMetric = "nvlink_links";
// A GPU and a HCA below one PCIe switch are 4 hops apart (two downstream ports); fewer is closer.
constexpr double kSameSwitchHops = 4;

std::optional<bool> node_boolean(const Profile& profile, const std::string& key) {
  const auto it = profile.node.find(key);
  if (it == profile.node.end()) return std::nullopt;
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  refuse_node_setting(profile, key, "true or false");
}

bool has_expectation(const Profile& profile, std::initializer_list<const char*> metrics) {
  for (const Expectation& e : profile.expectations) {
    if (e.probe != kTransportProbe) continue;
    for (const char* metric : metrics) {
      if (e.metric == metric) return true;
    }
  }
  return false;
}

}  // namespace

NodeSettingCatalog nccl_transport_node_settings() {
  return {
      {"nccl_network",
       "network NCCL must use between nodes: \"IB\", \"Socket\" or \"any\" (default: inferred "
       "from the node's RDMA ports and NCCL's log)"},
      {"nccl_gdr",
       "true: NET/IB must use GPUDirect RDMA; false: not judged (default: inferred from the "
       "GPU-to-HCA placement and NCCL's log)"},
      {"nccl_p2p",
       "true: GPUs of one node must talk over P2P/NVLink; false: not judged (default: inferred "
       "from the other GPUs of the node)"},
  };
}

NcclTransportExpectations nccl_expectations_from(const Profile& profile) {
  NcclTransportExpectations expectations;
  expectations.given_by = "profile " + profile.name;
  if (const auto it = profile.node.find("nccl_network"); it != profile.node.end()) {
    const std::string& value = it->second;
    if (value != "IB" && value != "Socket" && value != "any") {
      refuse_node_setting(profile, "nccl_network", "IB, Socket or any");
    }
    expectations.network = value;
  }
  expectations.gdr = node_boolean(profile, "nccl_gdr");
  expectations.intra_node_p2p = node_boolean(profile, "nccl_p2p");
  // A threshold in the profile speaks for itself; the evidence rule steps aside.
  if (expectations.network.empty() &&
      has_expectation(profile, {"socket_channels", "inter_node_socket_channels"})) {
    expectations.network = "any";
  }
  if (!expectations.gdr && has_expectation(profile, {"ib_channels_without_gdr", "gdr_channels"})) {
    expectations.gdr = false;
  }
  if (!expectations.intra_node_p2p && has_expectation(profile, {"intra_node_non_p2p_channels"})) {
    expectations.intra_node_p2p = false;
  }
  return expectations;
}

NcclNodeEvidence nccl_node_evidence(const std::vector<Measurement>& measurements,
                                    const std::string& host) {
  NcclNodeEvidence evidence;
  for (const Measurement& m : measurements) {
    if (m.host != host || m.status != MeasurementStatus::ok) continue;
    if (m.probe == kIbPortsProbe && m.metric == kActivePortsMetric) {
      evidence.active_rdma_ports = static_cast<int>(m.value);
      evidence.ports_evidence = "fabric.ib_ports on " + (host.empty() ? "the node" : host) + ": " +
                                std::to_string(static_cast<int>(m.value)) + " of " +
                                param_of(m, "ports") + " RDMA ports active";
    } else if (m.metric == kNvlinkLinksMetric) {
      if (m.value > 0 && !evidence.gpus_have_nvlink.value_or(false)) {
        const std::string bus = param_of(m, "bus_id");
        evidence.nvlink_evidence = m.probe + " on " + (host.empty() ? "the node" : host) + ": " +
                                   m.subject + (bus.empty() ? "" : " (" + bus + ")") + " has " +
                                   std::to_string(static_cast<int>(m.value)) + " NVLinks";
      }
      evidence.gpus_have_nvlink = evidence.gpus_have_nvlink.value_or(false) || m.value > 0;
    } else if (m.probe == kTopologyProbe && m.metric == kHcaHopsMetric &&
               !evidence.gpu_hca_share_path.value_or(false)) {
      const std::string gpu_numa = param_of(m, "gpu_numa_node");
      const std::string hca_numa = param_of(m, "hca_numa_node");
      const bool same_switch = m.value >= 0 && m.value <= kSameSwitchHops;
      const bool same_numa = !gpu_numa.empty() && gpu_numa != "-1" && gpu_numa == hca_numa;
      evidence.gpu_hca_share_path = same_switch || same_numa;
      if (same_switch || same_numa) {
        evidence.placement_evidence =
            "fabric.topology: GPU " + m.subject + " and " + m.peer +
            (same_switch
                 ? " share a PCIe switch (" + std::to_string(static_cast<int>(m.value)) + " hops)"
                 : " share NUMA node " + gpu_numa);
      }
    }
  }
  return evidence;
}

NcclNodeEvidence nccl_node_evidence_from_sysfs(const std::filesystem::path& sysfs_root) {
  std::vector<SysfsProblem> problems;
  std::vector<Measurement> records =
      ib_port_records(read_ib_ports(sysfs_root, &problems), problems);
  HwlocLocality no_hwloc;
  no_hwloc.problem = "a sysfs tree, not the live machine";
  for (Measurement& m : topology_records(gpu_placements(sysfs_root), no_hwloc))
    records.push_back(std::move(m));
  for (Measurement& m : records) m.host.clear();
  return nccl_node_evidence(records, "");
}

std::vector<Finding> judge_nccl_transport_measurements(
    const std::vector<Measurement>& measurements, const NcclTransportExpectations& expectations) {
  std::map<std::pair<std::string, std::string>, std::vector<const Measurement*>> groups;
  for (const Measurement& m : measurements) {
    if (m.probe == kTransportProbe && m.status == MeasurementStatus::ok) {
      groups[{m.host, m.subject}].push_back(&m);
    }
  }
  std::vector<Finding> findings;
  for (const auto& [key, group] : groups) {
    const auto& [host, subject] = key;
    const NcclTransportFacts facts = nccl_transport_facts_from(group);
    for (Finding& finding :
         judge_nccl_transport_facts(facts, expectations, nccl_node_evidence(measurements, host),
                                    kTransportProbe, subject)) {
      finding.host = host;
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

Judge make_nccl_transport_judge() {
  Judge judge;
  judge.name = "nccl_transport";
  judge.settings = nccl_transport_node_settings();
  judge.validate = [](const Profile& profile) { nccl_expectations_from(profile); };
  judge.judge = [](const std::vector<Measurement>& measurements, const Profile& profile) {
    return judge_nccl_transport_measurements(measurements, nccl_expectations_from(profile));
  };
  judge.scope = JudgeScope::whole_run;
  judge.reads = {{kTransportProbe, ""},
                 {kIbPortsProbe, kActivePortsMetric},
                 {kTopologyProbe, kHcaHopsMetric},
                 {"*", kNvlinkLinksMetric}};
  return judge;
}

}  // namespace fabcheck
