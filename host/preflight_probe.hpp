// node.preflight made to read a given NVML session (and to ask `cuda_problem` why CUDA sees no
// GPU; empty: CUDA is not asked), which stand for the drivers of the node of any --sysfs-root: for
// tests, which pass a double
// (tests/doubles/fake_nvml.hpp). The binary's, reading the process's, is registered by
// host/probes.def.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "bench/core/probe.hpp"
#include "bench/sys/nvml_library.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_preflight_probe(std::function<const NvmlSession&()> nvml,
                                            std::function<std::string()> cuda_problem = {});

}  // namespace fabcheck
