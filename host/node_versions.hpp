// The software and firmware versions of a node that a fleet should run alike: kernel, HCA firmware,
// rdma-core and MLNX_OFED (driver, CUDA, NCCL and VBIOS come from NVML and NCCL in the pre-flight).
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace fabcheck {

// uname's release ("6.8.0-45-generic").
std::string kernel_release();

// Each RDMA device's firmware: "mlx5_0" -> "28.39.1002", from <root>/sys/class/infiniband/*/fw_ver.
std::map<std::string, std::string> hca_firmware(const std::filesystem::path& sysfs_root);

// rdma-core's release from the file name libibverbs.so.1 resolves to ("libibverbs.so.1.14.50.0"
// -> "50.0"); "" when libibverbs is not installed.
std::string rdma_core_version();
// The part of a libibverbs file name after "so.1.<abi>." ("libibverbs.so.1.14.50.0" -> "50.0").
std::string rdma_core_version_of(const std::string& library_file_name);

// MLNX_OFED's driver version from <root>/sys/module/mlx5_core/version ("24.04-0.6.6"); "" for the
// kernel's own (inbox) driver, which has no such file.
std::string ofed_version(const std::filesystem::path& sysfs_root);

// NVSwitch devices among the PCI devices (NVIDIA vendor 0x10de, class 0x0680xx).
int nvswitch_count(const std::filesystem::path& sysfs_root);

// Whether a process named `name` runs on this host (its /proc/<pid>/comm), e.g. nv-fabricmanager.
bool process_running(const std::string& name, const std::filesystem::path& proc_root = "/proc");

}  // namespace fabcheck
