// Wrong results an MPI library is known to give for some element types and reductions, so that a
// collective's wrong elements there say where to look first (a FAIL still: jobs get them too).
#pragma once

#include <string>

namespace fabcheck {

// Why `library_version` (MPI_Get_library_version's text) gives wrong `type`/`redop` results, and
// how to tell it from the node, or "" where none is known. `mca_op` is OMPI_MCA_op's value (null:
// unset). Known: Open MPI's op/avx component (4.1 on) adds 8-bit integers with saturation
// (_mm256_adds_epi8) instead of MPI's wrapping arithmetic, whenever at least one vector of
// elements is summed (open-mpi/ompi#8045, closed wontfix); OMPI_MCA_op=^avx turns it off.
std::string known_mpi_fault(const std::string& library_version, const char* mca_op,
                            const std::string& type, const std::string& redop);

}  // namespace fabcheck
