// The sdc.* options every SDC screen reads (host.sdc, gpu.sdc, gpu.hbm_patterns): one declaration
// of each, so the probes that share a key cannot disagree about it. A profile's [sdc] table sets
// them for a site (results/profile.hpp).
#pragma once

#include "bench/core/option_spec.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck::sdc {

inline const OptionSpec kDurationSeconds{
    .key = "sdc.duration_s",
    .type = OptionType::number,
    .default_value = "5",
    .meaning =
        "seconds each SDC screen computes its chains (every CPU core at once; every SM of "
        "each GPU at once), each repeat",
    .min = 0.05,
    .max = 3600,
    .budget_floor = "1"};

inline const OptionSpec kRepeats{
    .key = "sdc.repeats",
    .type = OptionType::integer,
    .default_value = "1",
    .meaning =
        "passes of each SDC screen over the same blocks (a core that differs from its own "
        "earlier pass is named); on a GPU the last pass runs after gpu.gemm's burn when the "
        "plan has one",
    .min = 1,
    .max = 100,
    .budget_floor = "1"};

inline const OptionSpec kMemoryFraction{
    .key = "sdc.memory_fraction",
    .type = OptionType::number,
    .default_value = "0.25",
    .meaning = "fraction of each GPU's free memory gpu.hbm_patterns writes and verifies",
    .min = 0,
    .max = 0.9,
    .min_exclusive = true};

inline const OptionSpec kSeed{.key = "sdc.seed",
                              .type = OptionType::integer,
                              .default_value = "1",
                              .meaning =
                                  "seed of the SDC screens' blocks (every core, SM and "
                                  "node of a fleet computes the same blocks)",
                              .min = 0,
                              .max = 9007199254740991.0};

// A screen's estimate: a second of start-up, then sdc.repeats passes of sdc.duration_s; the knobs
// say "2 pass(es) of 60 s on every <where>" ("CPU", "SM").
ProbeEstimate estimate_passes(const RunOptions& options, const char* where);

}  // namespace fabcheck::sdc
