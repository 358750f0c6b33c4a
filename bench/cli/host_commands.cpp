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
  // Taken as typed, "" too (refused, not read as no bound).
  command->add_option_function<std::string>(
      "--since", [&args](const std::string& value) { args.options.since = value; },
      "Judge lines from this time, as journalctl --since reads it: 2024-03-05 10:00[:00], "
      "2024-03-05, 10:00, yesterday, today, now, -24h, -1h30min, \"2 hours ago\", @SECONDS, a "
      "trailing UTC, Z or +01:00 (local time without one)");
  command->add_option_function<std::string>(
      "--until", [&args](const std::string& value) { args.options.until = value; },
      "Judge lines up to this time (the forms of --since)");
  add_number_option(*command, "--flap-limit", args.options.flap_limit,
                    "Link downs within 24 h above which a link is flapping", 0, 1000000)
      ->capture_default_str();
  return command;
}

int kernel_log_main(KernelLogArgs& args) {
  return kernel_log_command(args.files, args.options, stdout);
}

}  // namespace fabcheck
