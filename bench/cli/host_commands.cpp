// The command line of `fabcheck kernel-log`: files, window and flap limit, then host/.
#include "bench/cli/host_commands.hpp"

#include <cstdio>

#include "bench/cli/number_option.hpp"

namespace fabcheck {

CLI::App* add_kernel_log_command(CLI::App& app, KernelLogArgs& args) {
  auto* command = app.add_subcommand(
      "kernel-log",
      "Hardware faults in saved kernel logs (dmesg, dmesg -T, journalctl -k, syslog): Xid, SXid, "
      "link flaps, PCIe limits, AER");
  command->add_option("FILE", args.files, "Kernel log files")->required();
  command->add_option("--since", args.options.since,
                      "Judge lines from this time: ISO 8601 or a span before now (-24h)");
  command->add_option("--until", args.options.until, "Judge lines up to this time");
  add_number_option(*command, "--flap-limit", args.options.flap_limit,
                    "Link downs within 24 h above which a link is flapping", 0, 1000000)
      ->capture_default_str();
  return command;
}

int kernel_log_main(KernelLogArgs& args) {
  return kernel_log_command(args.files, args.options, stdout);
}

}  // namespace fabcheck
