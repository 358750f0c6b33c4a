// Without MPI: no MPI world; fabcheck runs single-process.
#include "bench/core/world.hpp"

namespace fabcheck {

std::unique_ptr<World> make_mpi_world(int*, char***) { return nullptr; }
bool mpi_available() { return false; }
std::string mpi_library_version() { return ""; }

}  // namespace fabcheck
