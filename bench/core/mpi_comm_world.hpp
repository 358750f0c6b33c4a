// MpiCommWorld: a World over one MPI communicator (MPI builds only): the collectives the framework
// needs, host names from the ranks, and split() into sub-worlds (one per pair of nodes).
#pragma once

#include <mpi.h>

#include "bench/core/world.hpp"

namespace fabcheck {

class MpiCommWorld : public World {
 public:
  ~MpiCommWorld() override;

  MPI_Comm communicator() const { return comm_; }

  bool is_mpi() const override { return true; }
  void barrier() override;
  void max_in_place(std::vector<double>& values) override;
  void sum_in_place(std::vector<double>& values) override;
  std::unique_ptr<World> split(int color, int key) override;

 protected:
  MpiCommWorld() = default;
  std::vector<std::string> gather_to_root(const std::string& mine) override;
  std::string broadcast_from_root(const std::string& value) override;
  // Takes `comm` (freed by release() or the destructor) and learns every rank's host name.
  void adopt_with_host_names(MPI_Comm comm);
  // Takes `comm` whose ranks have the given hosts (a sub-world knows them from its parent).
  void adopt(MPI_Comm comm, std::vector<std::string> hosts);
  // Frees the communicator now (before MPI_Finalize).
  void release();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// The communicator behind an MPI world (for backends that make their own MPI calls), or
// MPI_COMM_NULL when `world` is not one.
MPI_Comm mpi_communicator(const World& world);

}  // namespace fabcheck
