// The MPI libraries' known wrong results, by library, element type and reduction.
#include "bench/coll/known_mpi_faults.hpp"

namespace fabcheck {

std::string known_mpi_fault(const std::string& library_version, const char* mca_op,
                            const std::string& type, const std::string& redop) {
  if (!library_version.starts_with("Open MPI")) return "";
  if ((type != "int8" && type != "uint8") || redop != "sum") return "";
  // op/avx already excluded: the wrong elements are not its.
  if (mca_op != nullptr && std::string(mca_op).find("^avx") != std::string::npos) return "";
  return "Open MPI's op/avx component sums 8-bit integers with saturation, not MPI's wrapping "
         "arithmetic (open-mpi/ompi#8045, wontfix): the same run with OMPI_MCA_op=^avx tells it "
         "from the node; wrong elements that stay without op/avx are the node's.";
}

}  // namespace fabcheck
