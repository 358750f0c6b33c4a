// MPI backend of the collective engine: host memory, the ranks of the World it is given (all of
// MPI_COMM_WORLD, or a sub-world such as one pair of nodes).
#pragma once

#include <climits>
#include <cstdint>
#include <memory>

#include "bench/coll/backend.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {

// nullptr when built without MPI or when `world` is not an MPI world. `max_count`: elements per MPI
// call (counts are `int`: larger operations go in pieces, mpi_call_plan.hpp); below INT_MAX only
// to exercise the pieces (--opt mpi.max_count=N).
std::unique_ptr<CollectiveBackend> make_mpi_backend(const World& world,
                                                    std::uint64_t max_count = INT_MAX);

}  // namespace fabcheck
