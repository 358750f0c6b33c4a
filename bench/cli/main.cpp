// fabcheck's entry point: the command line (CLI11) and its subcommands.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <optional>

#include "bench/cli/cli_support.hpp"
#include "bench/cli/commands.hpp"
#include "bench/cli/probe_families.hpp"
#include "bench/core/interrupt.hpp"
#include "fabric/commands.hpp"
#include "fabric/fabric_profile.hpp"
#include "results/config_error.hpp"

namespace {

void add_run_options(CLI::App& command, fabcheck::RunArgs& args, bool with_selection) {
  if (with_selection) {
    command.add_option("--probes", args.probes, "Probes to run: ID[,ID...]; FAMILY.* takes a family");
    command.add_option("--plan", args.plan, "A built-in plan: gate, acceptance, quick");
  }
  command.add_option("--profile", args.profile,
                     "Expected figures: auto (from this node's GPUs), a NAME in results/profiles, or a FILE")
      ->capture_default_str();
  command.add_option("--sizes", args.sizes, "Message sizes: MIN:MAX:FACTOR (8:256M:2), SIZE, or a list");
  command.add_option("--iters", args.iters, "Timed iterations per size");
  command.add_option("--warmup", args.warmup, "Warm-up iterations per size");
  command.add_option("--timeout", args.timeout_s, "Seconds one probe may take before the run is ended");
  command.add_option("--out", args.out, "Run directory (default ./fabcheck-results/<UTC>-<host>/)");
  command.add_option("--backend", args.backend, "Collective backend: mpi or nccl (default: nccl with GPUs)");
  command.add_option("--placement", args.placement, "Collective buffers: out, in or both");
  command.add_option("--storage-path", args.storage_paths, "A directory to test storage in (repeatable)");
  command.add_option("--sysfs-root", args.sysfs_root, "Read sysfs below this folder (default /)");
  command.add_option("--opt", args.extra, "Family option KEY=VALUE (repeatable)");
  command.add_flag("--single-process", args.single_process, "Do not start MPI even if built with it");
}

}  // namespace

int main(int argc, char** argv) {
  fabcheck::install_interrupt_handling();
  fabcheck::Registry registry;
  fabcheck::register_all_probes(registry);

  CLI::App app{"fabcheck: GPU-cluster fabric validation (collectives, links, storage) with verdicts"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "List probes and whether each applies on this node");
  std::string list_backend;
  list->add_option("--backend", list_backend, "Collective backend to judge applicability for");

  fabcheck::RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run probes (--probes or --plan) and judge them");
  add_run_options(*run, run_args, true);

  fabcheck::RunArgs gate_args;
  auto* gate = app.add_subcommand("gate", "Pre-job gate: run --plan gate (under a minute)");
  add_run_options(*gate, gate_args, false);

  std::string evaluate_dir;
  std::string evaluate_profile;
  auto* evaluate = app.add_subcommand("evaluate", "Re-judge a run directory's measurements");
  evaluate->add_option("RUN_DIR", evaluate_dir, "A run directory with measurements.jsonl")->required();
  evaluate->add_option("--profile", evaluate_profile, "Profile NAME or FILE to judge against")->required();

  std::vector<std::string> log_files;
  std::string expect_network = "any";
  fabcheck::NcclLogOptions log_options;
  auto* nccl_log = app.add_subcommand(
      "nccl-log", "Which transports NCCL used, from NCCL_DEBUG=INFO logs of any job (one per rank or mixed)");
  nccl_log->add_option("FILE", log_files, "NCCL debug log files")->required();
  nccl_log->add_option("--expect-network", expect_network, "IB, Socket or any")->capture_default_str();
  nccl_log->add_flag("--expect-gdr", log_options.expectations.gdr, "NET/IB must use GPUDirect RDMA");
  nccl_log->add_flag("--expect-p2p", log_options.expectations.intra_node_p2p,
                     "GPUs of one node must talk over P2P (NVLink/PCIe)");

  fabcheck::InventoryOptions inventory_options;
  std::string inventory_profile;
  std::map<std::string, std::string> expect_pcie;
  std::optional<int> expect_ib_ports;
  auto* inventory = app.add_subcommand("inventory", "PCIe links and IB/RoCE ports of this node (or a recorded sysfs tree), judged");
  inventory->add_option("--sysfs-root", inventory_options.sysfs_root, "Read sysfs below this folder")->capture_default_str();
  inventory->add_option("--profile", inventory_profile, "Profile NAME or FILE whose [node] table sets the expectations");
  inventory->add_option("--counters-after", inventory_options.counters_after_root, "A later sysfs snapshot: judge counter growth");
  inventory->add_option("--counter-interval", inventory_options.counter_interval_s, "Re-read live IB counters after S seconds");
  inventory->add_flag("--gpus-under-load", inventory_options.gpus_under_load, "GPUs are busy: judge their link generation");
  for (const char* kind : {"gpu", "hca", "nic", "nvme"}) {
    inventory->add_option(std::string("--expect-") + kind + "-pcie", expect_pcie[kind],
                          std::string("Minimum PCIe GENxWIDTH of each ") + kind + " (e.g. 5x16)");
  }
  inventory->add_option("--expect-ib-ports", expect_ib_ports, "Active RDMA ports expected (0: none)");
  inventory->add_option("--expect-ib-rate", inventory_options.expectations.ib_rate_gbps, "Minimum port rate, Gb/s");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    if (fabcheck::launcher_rank() == 0) {
      std::fprintf(stderr, "fabcheck: %s\nRun with --help for usage.\n", error.what());
    }
    return 2;
  }

  if (list->parsed()) return fabcheck::list_command(registry, list_backend, argc, argv);
  if (run->parsed()) return fabcheck::run_command(run_args, registry, argc, argv);
  if (gate->parsed()) {
    gate_args.plan = "gate";
    return fabcheck::run_command(gate_args, registry, argc, argv);
  }
  if (evaluate->parsed()) return fabcheck::evaluate_command(evaluate_dir, evaluate_profile, registry);
  try {
    if (nccl_log->parsed()) {
      if (expect_network != "any" && expect_network != "IB" && expect_network != "Socket") {
        throw fabcheck::ConfigError("--expect-network \"" + expect_network + "\": expected IB, Socket or any");
      }
      log_options.expectations.network = expect_network;
      return fabcheck::nccl_log_command(log_files, log_options, stdout);
    }
    if (inventory->parsed()) {
      auto& expected = inventory_options.expectations;
      if (!inventory_profile.empty()) {
        inventory_options.profile = fabcheck::load_profile_for(inventory_profile, registry, nullptr);
        expected = fabcheck::fabric_expectations_from(*inventory_options.profile);
      }
      // Flags override the profile's [node] table.
      fabcheck::PcieExpectation* targets[] = {&expected.gpu, &expected.hca, &expected.nic, &expected.nvme};
      const char* kinds[] = {"gpu", "hca", "nic", "nvme"};
      for (int i = 0; i < 4; ++i) {
        const std::string& value = expect_pcie[kinds[i]];
        if (!value.empty()) {
          *targets[i] = fabcheck::parse_pcie_expectation(std::string("--expect-") + kinds[i] + "-pcie", value);
        }
      }
      if (expect_ib_ports) expected.ib_ports = *expect_ib_ports;
      return fabcheck::inventory_command(inventory_options, stdout);
    }
  } catch (const fabcheck::ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  }
  return 2;
}
