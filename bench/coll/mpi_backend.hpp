// MPI backend of the collective engine: host memory, MPI_COMM_WORLD's ranks.
#pragma once

#include <memory>

#include "bench/coll/backend.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {

// nullptr when built without MPI or when `world` is not an MPI world.
std::unique_ptr<CollectiveBackend> make_mpi_backend(const World& world);

}  // namespace fabcheck
