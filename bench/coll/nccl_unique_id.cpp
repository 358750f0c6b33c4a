// The exchange of ncclUniqueId bytes through the World (see nccl_unique_id.hpp).
#include "bench/coll/nccl_unique_id.hpp"

#include <optional>

#include "bench/coll/nccl_error.hpp"

namespace fabcheck {

NcclUniqueIdBytes exchange_unique_id(World& world,
                                     const std::function<NcclUniqueIdBytes()>& make_id) {
  return world.broadcast_value(world.is_root() ? make_id() : NcclUniqueIdBytes{});
}

NcclUniqueIdBytes exchange_unique_id_per_host(World& world,
                                              const std::function<NcclUniqueIdBytes()>& make_id) {
  // Each host's first rank contributes its id, the others none: every rank gets all of them.
  const auto mine =
      world.local_rank() == 0 ? std::optional(make_id()) : std::optional<NcclUniqueIdBytes>();
  const auto per_rank = world.all_gather_values(mine);
  const auto& hosts = world.hosts();
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] == world.host() && per_rank[r]) return *per_rank[r];
  }
  throw NcclError("nccl: no unique id was made for host " + world.host());
}

}  // namespace fabcheck
