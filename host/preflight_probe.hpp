// node.preflight made to read a given NVML session: for tests, which pass a double
// (tests/doubles/fake_nvml.hpp). The binary's, reading the process's, is registered by
// host/probes.def.
#pragma once

#include <functional>
#include <memory>

#include "bench/core/probe.hpp"
#include "bench/sys/nvml_library.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_preflight_probe(std::function<const NvmlSession&()> nvml);

}  // namespace fabcheck
