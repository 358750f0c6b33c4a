// PCIe link and IB port readers against the recorded sysfs trees in fixtures/fabric/sysfs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fabric/ib_counters.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/pcie_link.hpp"

namespace fabcheck {
namespace {

std::string tree(const std::string& name) {
  return std::string(FABCHECK_FIXTURES_DIR) + "/fabric/sysfs/" + name;
}

const PcieLinkState& by_bdf(const std::vector<PcieLinkState>& links, const std::string& bdf) {
  auto it = std::find_if(links.begin(), links.end(),
                         [&](const PcieLinkState& l) { return l.bdf == bdf; });
  if (it == links.end()) throw std::runtime_error("no device " + bdf);
  return *it;
}

TEST(PcieSpeed, BothSpellingsAndUnknown) {
  EXPECT_EQ(parse_link_speed_gts("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(parse_link_speed_gts("32.0 GT/s PCIe"), 32.0);
  EXPECT_EQ(parse_link_speed_gts("64.0 GT/s PCIe"), 64.0);
  EXPECT_EQ(parse_link_speed_gts("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(parse_link_speed_gts("8 GT/s"), 8.0);
  EXPECT_EQ(parse_link_speed_gts("16 GT/s"), 16.0);
  EXPECT_FALSE(parse_link_speed_gts("Unknown"));
  EXPECT_FALSE(parse_link_speed_gts(""));
  EXPECT_FALSE(parse_link_speed_gts("12.0 GT/s PCIe"));
  EXPECT_FALSE(parse_link_speed_gts("16.0 Gb/s"));
  EXPECT_EQ(pcie_generation(2.5), 1);
  EXPECT_EQ(pcie_generation(8), 3);
  EXPECT_EQ(pcie_generation(32), 5);
  EXPECT_EQ(pcie_generation(64), 6);
  EXPECT_EQ(pcie_generation(3), 0);
}

TEST(PcieKind, FromClassAndVendor) {
  EXPECT_EQ(classify_pci_device("0x030200", "0x10de"), PcieDeviceKind::gpu);
  EXPECT_EQ(classify_pci_device("0x030000", "0x10de"), PcieDeviceKind::gpu);
  EXPECT_EQ(classify_pci_device("0x030000", "0x8086"), PcieDeviceKind::other);
  EXPECT_EQ(classify_pci_device("0x020700", "0x15b3"), PcieDeviceKind::hca);
  EXPECT_EQ(classify_pci_device("0x020000", "0x15b3"), PcieDeviceKind::nic);
  EXPECT_EQ(classify_pci_device("0x010802", "0x144d"), PcieDeviceKind::nvme);
  EXPECT_EQ(classify_pci_device("0x010601", "0x8086"), PcieDeviceKind::other);
  EXPECT_EQ(classify_pci_device("garbage", "0x10de"), PcieDeviceKind::other);
}

TEST(PcieAer, TotalLine) {
  EXPECT_EQ(parse_aer_total("RxErr 2\nBadTLP 1\nTOTAL_ERR_COR 3\n"), 3u);
  EXPECT_EQ(parse_aer_total("Undefined 0\nTOTAL_ERR_FATAL 0"), 0u);
  EXPECT_FALSE(parse_aer_total("RxErr 2\n"));
  EXPECT_FALSE(parse_aer_total("TOTAL_ERR_COR x"));
}

TEST(PcieLinks, HealthyTree) {
  auto links = read_pcie_links(tree("healthy"));
  // 8 GPUs + 8 HCAs + 2 NVMe + 1 on-board Ethernet; bridges and the host bridge are left out.
  ASSERT_EQ(links.size(), 19u);
  EXPECT_EQ(std::count_if(links.begin(), links.end(),
                          [](const PcieLinkState& l) { return l.kind == PcieDeviceKind::gpu; }),
            8);
  const auto& gpu = by_bdf(links, "0000:18:00.0");
  EXPECT_EQ(gpu.kind, PcieDeviceKind::gpu);
  EXPECT_EQ(gpu.current_gen(), 5);
  EXPECT_EQ(gpu.current_width, 16);
  EXPECT_EQ(gpu.upstream_port, "0000:17:00.0");
  EXPECT_EQ(gpu.driver, "nvidia");
  EXPECT_EQ(gpu.aer_fatal, 0u);
  const auto& hca = by_bdf(links, "0000:19:00.0");
  EXPECT_EQ(hca.kind, PcieDeviceKind::hca);
  EXPECT_EQ(hca.upstream_port, "0000:17:01.0");
  EXPECT_EQ(hca.aer_correctable, 3u);
  const auto& idle = by_bdf(links, "0000:f8:00.0");
  EXPECT_EQ(idle.current_gen(), 1);
  EXPECT_EQ(idle.max_gen(), 5);
  const auto& nvme = by_bdf(links, "0000:0a:00.0");
  EXPECT_EQ(nvme.kind, PcieDeviceKind::nvme);
  EXPECT_EQ(nvme.upstream_port, "0000:00:03.0");
  EXPECT_EQ(nvme.describe(), "Gen4 x4 (max Gen4 x4)");
}

TEST(PcieLinks, DegradedTreeOldKernelSpelling) {
  auto links = read_pcie_links(tree("degraded"));
  const auto& gpu = by_bdf(links, "0000:38:00.0");
  EXPECT_EQ(gpu.describe(), "Gen4 x8 (max Gen5 x16)");
  EXPECT_EQ(gpu.upstream_port, "0000:37:00.0");
  const auto& nvme = by_bdf(links, "0000:0b:00.0");
  EXPECT_EQ(nvme.describe(), "Gen4 x2 (max Gen4 x4)");
}

TEST(PcieLinks, MissingRootIsEmpty) {
  EXPECT_TRUE(read_pcie_links(tree("no-such-tree")).empty());
  EXPECT_TRUE(read_ib_ports(tree("no-such-tree")).empty());
}

TEST(IbPorts, RateAndStateText) {
  EXPECT_EQ(parse_ib_rate_gbps("400 Gb/sec (4X NDR)"), 400.0);
  EXPECT_EQ(parse_ib_rate_gbps("200 Gb/sec (4X HDR)"), 200.0);
  EXPECT_EQ(parse_ib_rate_gbps("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_FALSE(parse_ib_rate_gbps("400 Gb/s"));
  EXPECT_FALSE(parse_ib_rate_gbps("fast"));
  auto state = parse_coded_state("4: ACTIVE");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->code, 4);
  EXPECT_EQ(state->name, "ACTIVE");
  EXPECT_FALSE(parse_coded_state("ACTIVE"));
  EXPECT_FALSE(parse_coded_state("x: ACTIVE"));
}

TEST(IbPorts, HealthyTreeHasEightActiveNdrPorts) {
  auto ports = read_ib_ports(tree("healthy"));
  ASSERT_EQ(ports.size(), 8u);
  for (const auto& port : ports) {
    EXPECT_TRUE(port.active()) << port.subject();
    EXPECT_EQ(port.rate_gbps, 400.0) << port.subject();
    EXPECT_EQ(port.link_layer, "InfiniBand");
  }
  EXPECT_EQ(ports[0].subject(), "mlx5_0/1");
  EXPECT_EQ(ports[0].pci_bdf, "0000:19:00.0");
  EXPECT_EQ(ports[0].counters.at("counters/symbol_error"), 0u);
  EXPECT_EQ(ports[0].counters.count("hw_counters/out_of_buffer"), 1u);
}

TEST(IbPorts, DegradedTree) {
  auto ports = read_ib_ports(tree("degraded"));
  ASSERT_EQ(ports.size(), 8u);
  EXPECT_EQ(ports[2].rate_gbps, 200.0);
  EXPECT_FALSE(ports[5].active());
  EXPECT_EQ(ports[5].state->name, "DOWN");
  EXPECT_EQ(ports[5].phys_state->name, "Disabled");
  EXPECT_EQ(saturated_counters(ports[6].counters),
            (std::vector<std::string>{"counters/link_downed", "counters/symbol_error"}));
  EXPECT_TRUE(saturated_counters(ports[0].counters).empty());
}

TEST(IbCounters, WidthsAndDeltas) {
  EXPECT_EQ(counter_width_bits("counters/symbol_error"), 16);
  EXPECT_EQ(counter_width_bits("counters/link_downed"), 8);
  EXPECT_EQ(counter_width_bits("counters/local_link_integrity_errors"), 4);
  EXPECT_EQ(counter_width_bits("counters/port_xmit_data"), 64);
  EXPECT_TRUE(is_error_counter("hw_counters/out_of_buffer"));
  EXPECT_FALSE(is_error_counter("counters/port_xmit_data"));
  EXPECT_FALSE(is_error_counter("counters/port_xmit_wait"));

  auto before = read_ib_counters(tree("counters-before"));
  auto after = read_ib_counters(tree("counters-after"));
  ASSERT_EQ(after.count("mlx5_0/1"), 1u);
  auto changes = error_counter_changes(before.at("mlx5_0/1"), after.at("mlx5_0/1"));
  ASSERT_EQ(changes.size(), 1u);  // traffic grew too, but it is not an error
  EXPECT_EQ(changes[0].key, "counters/symbol_error");
  EXPECT_EQ(changes[0].delta, 32u);
  EXPECT_FALSE(changes[0].saturated);

  CounterSnapshot a{{"counters/link_downed", 250}, {"counters/port_rcv_errors", 9}};
  CounterSnapshot b{{"counters/link_downed", 255}, {"counters/port_rcv_errors", 3}};
  auto odd = error_counter_changes(a, b);
  ASSERT_EQ(odd.size(), 2u);
  EXPECT_EQ(odd[0].key, "counters/link_downed");
  EXPECT_TRUE(odd[0].saturated);
  EXPECT_EQ(odd[0].delta, 5u);
  EXPECT_TRUE(odd[1].reset);
  EXPECT_EQ(odd[1].delta, 0u);
}

}  // namespace
}  // namespace fabcheck
