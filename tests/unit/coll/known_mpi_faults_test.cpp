// The MPI libraries' known wrong results: Open MPI's op/avx 8-bit saturating sum named for int8 and
// uint8 sums only, and not once op/avx is excluded or for another library.
#include "bench/coll/known_mpi_faults.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

constexpr const char* kOpenMpi =
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";

TEST(KnownMpiFaults, OpenMpisSaturatingEightBitSumIsNamed) {
  for (const char* type : {"int8", "uint8"}) {
    const std::string known = known_mpi_fault(kOpenMpi, nullptr, type, "sum");
    EXPECT_NE(known.find("open-mpi/ompi#8045"), std::string::npos) << known;
    EXPECT_NE(known.find("OMPI_MCA_op=^avx"), std::string::npos) << known;
  }
  EXPECT_NE(known_mpi_fault(kOpenMpi, "self", "int8", "sum"), "");
}

TEST(KnownMpiFaults, NothingForOtherTypesOpsLibrariesOrWithoutOpAvx) {
  EXPECT_EQ(known_mpi_fault(kOpenMpi, nullptr, "int32", "sum"), "");
  EXPECT_EQ(known_mpi_fault(kOpenMpi, nullptr, "int8", "max"), "");
  EXPECT_EQ(known_mpi_fault(kOpenMpi, "^avx", "int8", "sum"), "");
  EXPECT_EQ(known_mpi_fault("MPICH Version: 4.0.2", nullptr, "int8", "sum"), "");
}

}  // namespace
}  // namespace fabcheck
