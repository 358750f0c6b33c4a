// Discovery of what backs a path, against a recorded mountinfo and a sysfs tree with two NVMe
// drives (one downtrained to Gen3 x2).
#include "storage/storage_target.hpp"

#include <gtest/gtest.h>

#include "storage/mount_table.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(FABCHECK_FIXTURES_DIR) / "storage";

std::string mountinfo() { return testing::read_whole_file(kFixtures / "mountinfo.txt"); }

TEST(MountTable, ParsesEveryWellFormedLine) {
  const auto mounts = parse_mountinfo(mountinfo());
  ASSERT_EQ(mounts.size(), 7u);
  EXPECT_EQ(mounts[3].mount_point, "/mnt/nvme");
  EXPECT_EQ(mounts[3].fs_type, "xfs");
  EXPECT_EQ(mounts[3].source, "/dev/nvme0n1p1");
  EXPECT_EQ(mounts[3].major, 259u);
  EXPECT_EQ(mounts[3].minor, 1u);
  EXPECT_EQ(mounts[4].mount_point, "/mnt/scratch disk");  // \040 decoded
  EXPECT_EQ(mounts[5].source, "fileserver:/export/ckpt");
}

TEST(MountTable, LongestMountPointWins) {
  const auto mounts = parse_mountinfo(mountinfo());
  EXPECT_EQ(find_mount(mounts, "/mnt/nvme/data/x")->mount_point, "/mnt/nvme");
  EXPECT_EQ(find_mount(mounts, "/mnt/nvmeother")->mount_point, "/");
  EXPECT_EQ(find_mount(mounts, "/mnt/shared/lustre/run")->fs_type, "lustre");
  EXPECT_EQ(find_mount(mounts, "/mnt/shared/other")->fs_type, "nfs4");
  EXPECT_EQ(find_mount(mounts, "/tmp")->fs_type, "tmpfs");
  EXPECT_FALSE(find_mount({}, "/x").has_value());
}

TEST(MountTable, Locality) {
  EXPECT_EQ(filesystem_locality("xfs"), "local");
  EXPECT_EQ(filesystem_locality("nfs4"), "network");
  EXPECT_EQ(filesystem_locality("lustre"), "network");
  EXPECT_EQ(filesystem_locality("tmpfs"), "memory");
  EXPECT_EQ(filesystem_locality("overlay"), "other");
}

TEST(StorageTarget, NvmePartitionLeadsToControllerAndPcieLink) {
  const BlockDevice device = describe_block_device(kFixtures / "sysfs-nvme", 259, 1);
  EXPECT_EQ(device.name, "nvme0n1p1");
  EXPECT_EQ(device.disk, "nvme0n1");
  EXPECT_EQ(device.controller, "nvme0");
  EXPECT_EQ(device.model, "SAMSUNG MZQL23T8HCLS-00A07");
  EXPECT_EQ(device.pci_address, "0000:01:00.0");
  EXPECT_EQ(device.pci_driver, "nvme");
  EXPECT_EQ(device.link_speed, "16.0 GT/s PCIe");
  EXPECT_EQ(device.link_width, "4");
  EXPECT_EQ(device.rotational, "0");
}

TEST(StorageTarget, TargetParamsNameMountDeviceAndLink) {
  const StorageTarget target =
      discover_storage_target("/mnt/scratch disk/job", kFixtures / "sysfs-nvme", mountinfo());
  EXPECT_EQ(target.fs_type, "ext4");
  EXPECT_EQ(target.locality, "local");
  EXPECT_EQ(target.device.name, "nvme1n1");
  const auto params = target.params();
  EXPECT_EQ(params.at("controller"), "nvme1");
  EXPECT_EQ(params.at("model"), "KIOXIA KCMY1RUG7T68");
  EXPECT_EQ(params.at("pci"), "0000:02:00.0");
  EXPECT_EQ(params.at("pci_link"), "8.0 GT/s PCIe x2 (max 32.0 GT/s PCIe x4)");
  EXPECT_EQ(params.count("disk"), 0u);  // the whole disk is mounted
  EXPECT_EQ(target.summary(),
            "/mnt/scratch disk/job: ext4 local on nvme1n1 (nvme1 KIOXIA KCMY1RUG7T68 0000:02:00.0 "
            "8.0 GT/s PCIe x2)");
}

TEST(StorageTarget, NetworkFilesystemHasNoBlockDevice) {
  const StorageTarget target =
      discover_storage_target("/mnt/shared/ckpt", kFixtures / "sysfs-nvme", mountinfo());
  EXPECT_EQ(target.locality, "network");
  EXPECT_TRUE(target.device.name.empty());
  EXPECT_EQ(target.params().at("mount_source"), "fileserver:/export/ckpt");
  EXPECT_EQ(target.summary(), "/mnt/shared/ckpt: nfs4 network from fileserver:/export/ckpt");
}

TEST(StorageTarget, UnknownDeviceLeavesFieldsEmpty) {
  const BlockDevice device = describe_block_device(kFixtures / "sysfs-nvme", 8, 0);
  EXPECT_TRUE(device.name.empty());
  EXPECT_TRUE(device.pci_address.empty());
}

TEST(StorageTarget, ThisMachinesTempDirectoryIsFound) {
  const StorageTarget target =
      discover_storage_target(std::filesystem::temp_directory_path().string(), "/");
  EXPECT_FALSE(target.mount_point.empty());
  EXPECT_FALSE(target.fs_type.empty());
}

}  // namespace
}  // namespace fabcheck
