// The 128-byte ncclUniqueId and its exchange through the World (typed, as wire.hpp sends an array
// of bytes) so every rank of a communicator starts from the same id.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "bench/core/world.hpp"

namespace fabcheck {

inline constexpr std::size_t kNcclUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
using NcclUniqueIdBytes = std::array<std::uint8_t, kNcclUniqueIdBytes>;

// The root calls `make_id` and broadcasts it; every rank returns the root's id.
NcclUniqueIdBytes exchange_unique_id(World& world,
                                     const std::function<NcclUniqueIdBytes()>& make_id);

// One id per host: the first rank of each host calls `make_id`; every rank returns its host's id
// (for communicators that stay inside a node).
NcclUniqueIdBytes exchange_unique_id_per_host(World& world,
                                              const std::function<NcclUniqueIdBytes()>& make_id);

}  // namespace fabcheck
