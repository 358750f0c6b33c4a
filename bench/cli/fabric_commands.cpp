// The command line of `fabcheck nccl-log` and `fabcheck inventory`: options, then fabric/commands.
#include "bench/cli/fabric_commands.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "bench/cli/number_option.hpp"
#include "bench/cli/profile_lookup.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "bench/sys/nvml_library.hpp"
#include "bench/sys/nvml_reader.hpp"
#include "bench/sys/pci_devices.hpp"
#include "fabric/fabric_profile.hpp"
#include "host/node_hardware.hpp"

namespace fabcheck {
namespace {

constexpr const char* kPcieKinds[] = {"gpu", "hca", "nic", "nvme"};

PcieExpectation& expectation_of(FabricExpectations& expected, const std::string& kind) {
  if (kind == "gpu") return expected.gpu;
  if (kind == "hca") return expected.hca;
  if (kind == "nic") return expected.nic;
  return expected.nvme;
}

}  // namespace

CLI::App* add_nccl_log_command(CLI::App& app, NcclLogArgs& args) {
  auto* command = app.add_subcommand(
      "nccl-log",
      "Which transports NCCL used, from NCCL_DEBUG=INFO logs of any job (one per rank or mixed)");
  command->add_option("FILE", args.files, "NCCL debug log files")->required();
  command->add_option("--expect-network", args.expect_network,
                      "IB, Socket or any (default: inferred from the log and the node: inter-node "
                      "sockets FAIL where NCCL looked for IB devices, else WARN)");
  auto* gdr = command->add_flag("--expect-gdr", args.expect_gdr,
                                "NET/IB must use GPUDirect RDMA (default: FAIL where a GPU and a "
                                "HCA share a PCIe switch or NUMA node, WARN where NCCL said GDR is "
                                "disabled for the HCA or no connection used GDR)");
  command->add_flag("--no-expect-gdr", args.no_expect_gdr, "Do not judge GPUDirect RDMA use")
      ->excludes(gdr);
  auto* p2p = command->add_flag("--expect-p2p", args.expect_p2p,
                                "GPUs of one node must talk over P2P (default: WARN where other "
                                "GPUs of that node do, or where none of them did)");
  command->add_flag("--no-expect-p2p", args.no_expect_p2p, "Do not judge P2P inside a node")
      ->excludes(p2p);
  command->add_option("--sysfs-root", args.options.sysfs_root,
                      "The node's sysfs (/ on the node itself, or a recorded tree): its active "
                      "RDMA ports and GPU-to-HCA placement are evidence of what NCCL should use");
  return command;
}

CLI::App* add_inventory_command(CLI::App& app, InventoryArgs& args) {
  auto* command = app.add_subcommand(
      "inventory", "PCIe links and IB/RoCE ports of this node (or a recorded sysfs tree), judged");
  InventoryOptions& options = args.options;
  command->add_option("--sysfs-root", options.sysfs_root, "Read sysfs below this folder")
      ->capture_default_str();
  command->add_option("--profile", args.profile,
                      "Profile NAME, FILE or auto whose [node] table sets the expectations");
  command->add_option("--counters-after", options.counters_after_root,
                      "A later sysfs snapshot: judge counter growth");
  add_number_option(*command, "--counter-interval", options.counter_interval_s,
                    "Re-read live IB counters after S seconds", 0, 3600);
  command->add_flag("--gpus-under-load", options.gpus_under_load,
                    "GPUs are busy: judge their link generation");
  for (const char* kind : kPcieKinds) {
    command->add_option(std::string("--expect-") + kind + "-pcie", args.expect_pcie[kind],
                        std::string("Minimum PCIe GENxWIDTH of each ") + kind + " (e.g. 5x16)");
  }
  add_number_option(*command, "--expect-hcas,--expect-ib-ports", args.expect_ib_ports,
                    "Active IB/RoCE ports expected (0: none)", 0, kMaxIbPortsOfANode);
  add_number_option(*command, "--expect-gpus", args.expect_gpus,
                    "NVIDIA GPUs expected on the PCI bus, each with its driver (and, on this "
                    "node, NVML) seeing it",
                    0, 1024);
  add_number_option(*command, "--expect-nvme", args.expect_nvme,
                    "NVMe controllers expected on the bus", 0, 1024);
  command->add_option("--profile-dir", args.profile_dirs,
                      "A folder of site profiles searched first (repeatable)");
  add_number_option(*command, "--expect-ib-rate", options.expectations.ib_rate_gbps,
                    "Minimum port rate, Gb/s", 1, 10000);
  return command;
}

int nccl_log_main(NcclLogArgs& args) {
  const std::string& network = args.expect_network;
  if (!network.empty() && network != "any" && network != "IB" && network != "Socket") {
    std::fprintf(stderr, "fabcheck: --expect-network \"%s\": expected IB, Socket or any\n",
                 network.c_str());
    return 2;
  }
  NcclTransportExpectations& expected = args.options.expectations;
  expected.network = network;
  if (args.expect_gdr) expected.gdr = true;
  if (args.no_expect_gdr) expected.gdr = false;
  if (args.expect_p2p) expected.intra_node_p2p = true;
  if (args.no_expect_p2p) expected.intra_node_p2p = false;
  expected.given_by = "given on the command line";
  const std::string& root = args.options.sysfs_root;
  std::error_code error;
  if (!root.empty() && !std::filesystem::is_directory(root, error)) {
    std::fprintf(stderr, "fabcheck nccl-log: --sysfs-root \"%s\": not a folder\n", root.c_str());
    return 2;
  }
  return nccl_log_command(args.files, args.options, stdout);
}

namespace {

// The GPUs and NVMe controllers on the bus, judged against --expect-gpus / --expect-nvme (over
// the profile's [node] gpus, nvme, nvme_model); NVML is this process's, so it is compared only
// on the node itself (--sysfs-root /).
void judge_node_hardware_for_inventory(InventoryArgs& args) {
  Profile profile = args.options.profile.value_or(Profile{});
  if (args.expect_gpus) override_node_setting(profile, "gpus", *args.expect_gpus);
  if (args.expect_nvme) override_node_setting(profile, "nvme", *args.expect_nvme);
  const NodeHardwareExpectation expected = node_hardware_expected(profile);
  GpuDriverView view;
  view.asked = args.options.sysfs_root == "/";
  if (view.asked) {
    const NvmlSession& nvml = process_nvml();
    view.nvml_problem = nvml.ok() ? "" : nvml.reason;
    if (nvml.ok()) {
      for (const NvmlDeviceIdentity& gpu : read_nvml_identities(*nvml.api, nvml.device_count))
        view.nvml_bus_ids.insert(gpu.bus_id);
    }
  }
  const NodeHardware hardware =
      compare_node_hardware(read_pci_devices(args.options.sysfs_root), view);
  std::string report = "NVIDIA GPUs on the PCI bus (" + std::to_string(hardware.gpus.size()) +
                       "):\n";
  for (const GpuOnBus& gpu : hardware.gpus) {
    report += "  " + gpu.device.bdf + " " + gpu.device.vendor_device() + " driver " +
              (gpu.device.driver.empty() ? std::string("none") : gpu.device.driver) + ": " +
              (gpu.missing.empty() ? std::string(view.asked ? "usable" : "bound (drivers not "
                                                                         "asked: a recorded tree)")
                                   : gpu.missing) +
              "\n";
  }
  report += "NVMe controllers on the PCI bus: " + std::to_string(hardware.nvme.size()) + "\n";
  args.options.node_report = report;
  args.options.node_findings =
      judge_node_hardware(node_hardware_measurements(hardware, "inventory"), expected);
}

}  // namespace

int inventory_main(InventoryArgs& args, const Registry& registry) {
  try {
    FabricExpectations& expected = args.options.expectations;
    if (!args.profile.empty()) {
      args.options.profile = load_profile_for(args.profile, registry, nullptr, args.profile_dirs,
                                              args.options.sysfs_root);
      const double rate = expected.ib_rate_gbps;
      expected = fabric_expectations_from(*args.options.profile);
      if (rate > 0) expected.ib_rate_gbps = rate;
    }
    // Flags override the profile's [node] table.
    for (const char* kind : kPcieKinds) {
      const std::string& value = args.expect_pcie[kind];
      if (!value.empty()) {
        expectation_of(expected, kind) =
            parse_pcie_expectation(std::string("--expect-") + kind + "-pcie", value);
      }
    }
    if (args.expect_ib_ports) expected.ib_ports = *args.expect_ib_ports;
    // A mistyped sysfs tree read as "no device" (or no counter growth) would pass.
    for (const auto& [option, path] :
         {std::pair<const char*, const std::string&>{"--sysfs-root", args.options.sysfs_root},
          {"--counters-after", args.options.counters_after_root}}) {
      if (path.empty()) continue;
      const std::string what = describe_path(path);
      if (what != "a directory")
        throw ConfigError(std::string(option) + " " + path + ": is " + what +
                          ", not a sysfs tree (a folder holding sys/)");
    }
    judge_node_hardware_for_inventory(args);
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  }
  return inventory_command(args.options, stdout);
}

}  // namespace fabcheck
