// The command line of `fabcheck nccl-log` and `fabcheck inventory` (their logic is in fabric/).
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"
#include "fabric/commands.hpp"

namespace fabcheck {

struct NcclLogArgs {
  std::vector<std::string> files;
  std::string expect_network;  // "" = from evidence
  bool expect_gdr = false;
  bool no_expect_gdr = false;
  bool expect_p2p = false;
  bool no_expect_p2p = false;
  NcclLogOptions options;
};

struct InventoryArgs {
  InventoryOptions options;
  std::string profile;
  std::map<std::string, std::string> expect_pcie;  // kind -> "5x16"
  std::optional<int> expect_ib_ports;  // --expect-ib-ports, or its newer name --expect-hcas
  std::optional<int> expect_gpus;      // --expect-gpus
  std::optional<int> expect_nvme;      // --expect-nvme
  std::vector<std::string> profile_dirs;
};

CLI::App* add_nccl_log_command(CLI::App& app, NcclLogArgs& args);
CLI::App* add_inventory_command(CLI::App& app, InventoryArgs& args);

// Exit codes as the fabric commands define them; 2 for bad options.
int nccl_log_main(NcclLogArgs& args);
int inventory_main(InventoryArgs& args, const Registry& registry);

}  // namespace fabcheck
