// The coll.* probe of one collective entry (collective.hpp): its id, description, options,
// estimate, memory need, plans and run, all read from the entry. Each entry's file makes its
// probe with make_collective_probe (its probes.def line names that factory).
#pragma once

#include <memory>
#include <string>

#include "bench/coll/collective.hpp"
#include "bench/coll/nccl_log_proof.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

// The probe "coll.<name>" measuring `collective` (an entry that lives as long as the program).
std::unique_ptr<Probe> make_collective_probe(const Collective& collective);

// The entry `probe` measures; nullptr for a probe that is not one collective's.
const Collective* collective_of(const Probe& probe);

// The buffers `collective` holds per rank at its largest size (input + output, or one buffer in
// place), over the sizes and placements the options give for `backend` on `ranks` ranks
// (ProbeInfo::buffer_need). Throws ConfigError when no size leaves an element per rank.
BufferNeed collective_buffer_need(const Collective& collective, const RunOptions& options,
                                  const std::string& backend, int ranks);

}  // namespace fabcheck
