// Registers the coll.* probes listed in probes.def, the node-pairs and bisection judges, the stall
// rule and the straggler rule; the collectives' table from the same lines.
#include "bench/coll/register.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

#include "bench/coll/collective_probe.hpp"
#include "bench/coll/collective_stragglers.hpp"
#include "bench/coll/collective_tails.hpp"
#include "bench/coll/node_bisect.hpp"
#include "bench/coll/node_pairs.hpp"

namespace fabcheck {

#define FABCHECK_PROBE(factory) std::unique_ptr<Probe> factory(const NcclLogProof& proof);
#include "bench/coll/probes.def"
#undef FABCHECK_PROBE

void register_coll_probes(Registry& registry, NcclLogProof proof) {
#define FABCHECK_PROBE(factory) registry.add(factory(proof));
#include "bench/coll/probes.def"
#undef FABCHECK_PROBE
  registry.add_judge(make_node_pairs_judge());
  registry.add_judge(make_node_bisect_judge());
  registry.add_judge(make_collective_tail_judge());
  registry.add_judge(make_collective_straggler_judge());
}

const std::vector<const Collective*>& all_collectives() {
  // The entries outlive the probes made here to read them (each is its file's constant).
  static const std::vector<const Collective*> collectives = [] {
    std::vector<const Collective*> found;
    const NcclLogProof none;
#define FABCHECK_PROBE(factory) \
  if (const Collective* collective = collective_of(*factory(none))) found.push_back(collective);
#include "bench/coll/probes.def"
#undef FABCHECK_PROBE
    return found;
  }();
  return collectives;
}

const Collective& find_collective(const std::string& name) {
  for (const Collective* collective : all_collectives()) {
    if (name == collective->name()) return *collective;
  }
  throw std::logic_error("no collective named \"" + name + "\" in bench/coll/probes.def");
}

}  // namespace fabcheck
