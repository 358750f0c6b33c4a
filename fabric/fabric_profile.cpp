// The fabric's [node] settings in a profile, and the fabric judge built on them.
#include "fabric/fabric_profile.hpp"

#include <cmath>
#include <string>

#include "bench/sys/config_error.hpp"
#include "fabric/commands.hpp"
#include "fabric/link_measurements.hpp"
#include "results/profile.hpp"

namespace fabcheck {
namespace {

double node_number(const Profile& profile, const std::string& key, double minimum) {
  const std::string& text = profile.node.at(key);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(value) || value < minimum) {
    refuse_node_setting(profile, key,
                        "a number of at least " + std::to_string(static_cast<long long>(minimum)));
  }
  return value;
}

}  // namespace

NodeSettingCatalog fabric_node_settings() {
  return {
      {"gpu_pcie", "minimum PCIe generation and width of every GPU, e.g. \"5x16\""},
      {"hca_pcie", "minimum PCIe generation and width of every RDMA adapter, e.g. \"5x16\""},
      {"nic_pcie", "minimum PCIe generation and width of other network controllers"},
      {"nvme_pcie", "minimum PCIe generation and width of every NVMe controller, e.g. \"4x4\""},
      {"hcas", "active RDMA (IB/RoCE) ports the node must have; 0 expects none"},
      {"ib_ports", "the older name of hcas (one of the two)"},
      {"ib_rate_gbps", "minimum rate of every RDMA port in Gb/s, e.g. 400 for NDR"},
  };
}

FabricExpectations fabric_expectations_from(const Profile& profile) {
  FabricExpectations expectations;
  const std::string where = profile.path.empty() ? profile.name : profile.path;
  auto pcie = [&](const char* key, PcieExpectation& target) {
    const auto it = profile.node.find(key);
    if (it == profile.node.end()) return;
    try {
      target = parse_pcie_expectation(std::string("[node] ") + key, it->second);
    } catch (const ConfigError& error) {
      throw ConfigError(where, profile.node_lines.at(key), error.what());
    }
  };
  pcie("gpu_pcie", expectations.gpu);
  pcie("hca_pcie", expectations.hca);
  pcie("nic_pcie", expectations.nic);
  pcie("nvme_pcie", expectations.nvme);
  if (profile.node.count("hcas") && profile.node.count("ib_ports")) {
    throw ConfigError(where, profile.node_lines.at("ib_ports"),
                      "[node] ib_ports is the older name of hcas: give one of them");
  }
  for (const char* key : {"hcas", "ib_ports"}) {
    if (!profile.node.count(key)) continue;
    const double ports = node_number(profile, key, 0);
    // Out of range it would wrap when converted and the check would vanish (a PASS).
    if (ports != std::floor(ports) || ports < 0 || ports > kMaxIbPortsOfANode) {
      refuse_node_setting(profile, key,
                          "a whole number from 0 to " + std::to_string(kMaxIbPortsOfANode));
    }
    expectations.ib_ports = static_cast<int>(ports);
  }
  if (profile.node.count("ib_rate_gbps"))
    expectations.ib_rate_gbps = node_number(profile, "ib_rate_gbps", 0);
  return expectations;
}

Judge make_fabric_judge() {
  Judge judge;
  judge.name = "fabric";
  judge.settings = fabric_node_settings();
  judge.validate = [](const Profile& profile) { fabric_expectations_from(profile); };
  judge.judge = [](const std::vector<Measurement>& measurements, const Profile& profile) {
    return judge_fabric_measurements(measurements, fabric_expectations_from(profile));
  };
  // judge_fabric_measurements looks at these three probes' records only.
  judge.reads = {{kPcieLinksProbe, ""}, {kIbPortsProbe, ""}, {kIbCountersProbe, ""}};
  return judge;
}

}  // namespace fabcheck
