// Tests of the node's version and daemon readers against synthetic sysfs and /proc trees (written
// from the formats in /work/shared/reference/interfaces.md, not recorded): HCA firmware, MLNX_OFED,
// rdma-core from libibverbs' file name, NVSwitch count, a running nv-fabricmanager (its comm cut to
// 15 characters) — and the pre-flight rule that fails a node with NVSwitches and no fabric manager.
#include "host/node_versions.hpp"

#include <gtest/gtest.h>

#include "host/preflight.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_whole_file;

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  write_whole_file(file, text);
}

TEST(NodeVersions, HcaFirmwarePerDeviceAndOfed) {
  TempDir root;
  write_file(root.path() / "sys/class/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
  write_file(root.path() / "sys/class/infiniband/mlx5_1/fw_ver", "28.40.1000\n");
  fs::create_directories(root.path() / "sys/class/infiniband/mlx5_2");  // no fw_ver: left out
  const auto firmware = hca_firmware(root.path());
  ASSERT_EQ(firmware.size(), 2u);
  EXPECT_EQ(firmware.at("mlx5_0"), "28.39.1002");
  EXPECT_EQ(firmware.at("mlx5_1"), "28.40.1000");
  EXPECT_EQ(ofed_version(root.path()), "");  // the inbox driver has no version file
  write_file(root.path() / "sys/module/mlx5_core/version", "24.04-0.6.6\n");
  EXPECT_EQ(ofed_version(root.path()), "24.04-0.6.6");
  TempDir empty;
  EXPECT_TRUE(hca_firmware(empty.path()).empty());
}

TEST(NodeVersions, RdmaCoreFromTheLibraryFileName) {
  EXPECT_EQ(rdma_core_version_of("libibverbs.so.1.14.50.0"), "50.0");
  EXPECT_EQ(rdma_core_version_of("libibverbs.so.1.1.2404.0"), "2404.0");  // MLNX_OFED's build
  EXPECT_EQ(rdma_core_version_of("libibverbs.so.1"), "");
  EXPECT_EQ(rdma_core_version_of("libibverbs.so.1.14"), "");
  EXPECT_EQ(rdma_core_version_of("libfoo.so"), "");
}

TEST(NodeVersions, NvSwitchesAreNvidiaBridgesOfClass0680) {
  TempDir root;
  const fs::path devices = root.path() / "sys/bus/pci/devices";
  auto device = [&](const std::string& bdf, const std::string& vendor, const std::string& cls) {
    write_file(devices / bdf / "vendor", vendor + "\n");
    write_file(devices / bdf / "class", cls + "\n");
  };
  device("0000:05:00.0", "0x10de", "0x068000");  // NVSwitch
  device("0000:06:00.0", "0x10de", "0x068000");
  device("0000:18:00.0", "0x10de", "0x030200");  // a GPU
  device("0000:19:00.0", "0x15b3", "0x020700");  // a ConnectX HCA
  device("0000:20:00.0", "0x8086", "0x068000");  // another vendor's bridge of that class
  EXPECT_EQ(nvswitch_count(root.path()), 2);
  TempDir empty;
  EXPECT_EQ(nvswitch_count(empty.path()), 0);
}

TEST(NodeVersions, ProcessRunningMatchesTheKernelsCutName) {
  TempDir proc;
  write_file(proc.path() / "1/comm", "systemd\n");
  write_file(proc.path() / "2211/comm", "nv-fabricmanage\n");  // comm keeps 15 characters
  write_file(proc.path() / "self/comm", "nv-hostengine\n");    // not a pid: ignored
  EXPECT_TRUE(process_running("nv-fabricmanager", proc.path()));
  EXPECT_TRUE(process_running("systemd", proc.path()));
  EXPECT_FALSE(process_running("nv-hostengine", proc.path()));
  EXPECT_FALSE(process_running("nv-fabric", proc.path()));  // a prefix is not the name
}

Measurement fabric_manager(double running) {
  Measurement m;
  m.probe = kPreflightProbe;
  m.metric = "fabric_manager";
  m.value = running;
  m.unit = "bool";
  m.subject = "node";
  m.host = "node07";
  m.params = {{"nvswitches", "4"}};
  return m;
}

TEST(NodeVersions, NvSwitchesWithoutTheFabricManagerMakeTheNodeUnfit) {
  const auto down = judge_preflight({fabric_manager(0)});
  ASSERT_FALSE(down.empty());
  EXPECT_EQ(down[0].severity, Severity::fail);
  EXPECT_NE(down[0].message.find("fabric manager is not running on a node with 4 NVSwitches"),
            std::string::npos)
      << down[0].message;
  EXPECT_NE(down[0].remedy.find("systemctl start nvidia-fabricmanager"), std::string::npos);
  for (const Finding& f : judge_preflight({fabric_manager(1)})) {
    EXPECT_NE(f.severity, Severity::fail) << f.message;
  }
}

}  // namespace
}  // namespace fabcheck
