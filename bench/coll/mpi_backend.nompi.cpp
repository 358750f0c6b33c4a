// Without MPI there is no MPI backend.
#include "bench/coll/mpi_backend.hpp"

namespace fabcheck {

std::unique_ptr<CollectiveBackend> make_mpi_backend(const World&, std::uint64_t) { return nullptr; }

}  // namespace fabcheck
