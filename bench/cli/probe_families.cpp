// Registers every probe family this binary has: the one place that names them all.
#include "bench/cli/probe_families.hpp"

#include "bench/cli/peer_settings.hpp"

#include "bench/coll/register.hpp"
#include "fabric/nccl_loopback_proof.hpp"
#include "fabric/register.hpp"
#include "host/register.hpp"
#include "kernels/register.hpp"
#include "storage/register.hpp"

namespace fabcheck {

void register_all_probes(Registry& registry) {
  register_coll_probes(registry, network_only_log_problem);
  register_fabric_probes(registry);
  register_kernel_probes(registry);
  register_storage_probes(registry);
  register_host_probes(registry);
  // Last: it compares the figures of every probe above with their peers.
  registry.add_judge(make_peer_judge(registry));
}

}  // namespace fabcheck
