// CollectiveBackend: what a transport (MPI on host memory, NCCL on device memory) provides to the
// one shared timing loop in engine.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "bench/coll/collective.hpp"

namespace fabcheck {

enum class Placement { out_of_place, in_place };
const char* placement_name(Placement placement);  // "out", "in"

class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;
  virtual std::string name() const = 0;  // "mpi", "nccl"
  // Element type name for the table ("float").
  virtual std::string type_name() const { return "float"; }
  virtual bool supports(Collective collective, Placement placement) const = 0;

  // Allocates (or reuses) buffers for this shape; called before each size.
  virtual void prepare(Collective collective, Placement placement, const CollectiveShape& shape) = 0;
  // Writes verify::input_value(rank, i, seed) into this rank's input and poisons the output.
  virtual void fill_inputs(std::uint32_t seed) = 0;
  // Runs `count` operations back to back and waits for them; returns the seconds they took on this
  // rank (host clock for MPI, device events for NCCL).
  virtual double run_timed(int count) = 0;
  // Counts this rank's output elements that differ from what `seed`'s inputs must give.
  virtual std::uint64_t count_wrong(std::uint32_t seed) = 0;
};

}  // namespace fabcheck
