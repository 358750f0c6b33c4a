// The command line of `fabcheck kernel-log` (its logic is in host/).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "host/kernel_log_command.hpp"

namespace fabcheck {

struct KernelLogArgs {
  std::vector<std::string> files;
  KernelLogOptions options;
};

CLI::App* add_kernel_log_command(CLI::App& app, KernelLogArgs& args);

// Exit codes as kernel_log_command defines them.
int kernel_log_main(KernelLogArgs& args);

}  // namespace fabcheck
