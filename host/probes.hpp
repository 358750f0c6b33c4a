// Factories of the node.* and host.* probes (each defined in its own *_probe.cpp); register.cpp
// adds them.
#pragma once

#include <functional>
#include <memory>

#include "bench/core/probe.hpp"
#include "bench/sys/nvml_library.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_kernel_log_probe();
std::unique_ptr<Probe> make_host_cpu_probe();
std::unique_ptr<Probe> make_host_numa_probe();
std::unique_ptr<Probe> make_host_mem_bw_probe();
// `nvml` gives the NVML session the GPU checks read (the process's; a test double in tests).
std::unique_ptr<Probe> make_preflight_probe(
    std::function<const NvmlSession&()> nvml = process_nvml);

}  // namespace fabcheck
