// The storage probes in the order a plan runs them: local patterns, then shared ones.
#include "storage/register.hpp"

#include "storage/probes.hpp"

namespace fabcheck {

void register_storage_probes(Registry& registry) {
  registry.add(make_seq_write_probe());
  registry.add(make_seq_read_probe());
  registry.add(make_rand_read_probe());
  registry.add(make_fsync_lat_probe());
  registry.add(make_ckpt_write_probe());
  registry.add(make_ckpt_read_probe());
  registry.add(make_metadata_probe());
  registry.add(make_contention_probe());
  registry.add(make_loader_probe());
}

}  // namespace fabcheck
