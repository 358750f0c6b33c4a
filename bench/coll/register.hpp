// Registers the coll.* probes listed in probes.def (the collectives, coll.nic_loopback,
// coll.node_pairs) and the node-pairs judge; and the collectives' table, read from those probes.
#pragma once

#include <string>
#include <vector>

#include "bench/coll/collective.hpp"
#include "bench/coll/nccl_log_proof.hpp"
#include "bench/core/registry.hpp"

namespace fabcheck {

// coll.nic_loopback proves from its own NCCL log, with `proof`, that its traffic crossed the NICs;
// without one it says it could not.
void register_coll_probes(Registry& registry, NcclLogProof proof = {});

// Every collective's entry, in probes.def order: the entries of its lines that make a collective's
// probe (no list of collectives is kept anywhere else).
const std::vector<const Collective*>& all_collectives();

// The entry named `name` ("all_reduce"), for the probes that run a collective of the family
// (coll.node_pairs, coll.nic_loopback); throws std::logic_error when there is none. Never from a
// probe's constructor: the table is read from the probes themselves.
const Collective& find_collective(const std::string& name);

}  // namespace fabcheck
