// CollectiveBackend: what a transport (MPI on host memory, NCCL on device memory) provides to the
// one shared timing loop in engine.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/coll/collective.hpp"

namespace fabcheck {

class World;

// A backend's communicator has comm_size() members; this process drives one or more of them (MPI:
// one; NCCL under MPI: one GPU; NCCL without MPI: every visible GPU). Per-member results are in
// the order of the members' ranks in the communicator.
class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;
  virtual std::string name() const = 0;  // "mpi", "nccl"
  virtual int comm_size() const = 0;     // n in the bus factors
  // Whether it runs `collective` in `placement`: as the entry's layout for this backend says.
  virtual bool supports(const Collective& collective, Placement placement) const = 0;
  // One line per member this process drives: "rank 0 node-a gpu 0 0000:17:00.0 NVIDIA H200".
  virtual std::vector<std::string> member_descriptions() const = 0;

  // Allocates (or reuses) buffers for this shape of `element`s (their type, and the reduction a
  // reducing collective applies); called before each size.
  virtual void prepare(const Collective& collective, Placement placement,
                       const CollectiveShape& shape, const verify::Element& element) = 0;
  // Writes verify::input_bits(element, n, member_rank, i, seed) into each member's input; poisons
  // outputs.
  virtual void fill_inputs(std::uint32_t seed) = 0;
  // Runs `count` operations back to back and waits for them, untimed (warm-up, the checked
  // operation). Throws on an error or a timeout.
  virtual void run_untimed(int count) = 0;
  // One timed sample of `count` operations, in two steps so that the engine can align the ranks
  // between them (engine.cpp, "the timing loop"):
  //  - queue_sample readies the operations without letting any start where the backend can hold
  //    them (NCCL: each member's stream held behind a spin gate, start event, the operations,
  //    stop event; MPI: nothing, host calls cannot be queued);
  //  - complete_sample lets them run (NCCL: opens the gates; MPI: runs them between two reads of
  //    the host clock), waits for them and returns the seconds the `count` operations took in
  //    this process (the slowest member it drives).
  // Both throw on an error or a timeout; a backend destroyed between the two lets go of what it
  // held.
  virtual void queue_sample(int count) = 0;
  virtual double complete_sample() = 0;
  // Operations per timed sample when the run does not say (SweepConfig::ops_per_sample 0). NCCL: 4,
  // so the per-sample alignment skew and event resolution are amortised. MPI: 1 (mpi_backend).
  virtual int preferred_ops_per_sample() const { return 4; }
  // Timed samples so far whose operations could not all be held until the sample started (NCCL:
  // the launch waited on the GPU with the gates closed, so they were opened early): those samples
  // include host time. The engine records the count per size.
  virtual int samples_released_early() const { return 0; }
  // Output elements that differ from what `seed`'s inputs must give, one count per member driven.
  virtual std::vector<std::uint64_t> count_wrong(std::uint32_t seed) = 0;
  // Why this backend's library is known to give wrong `type`/`redop` results ("": none known):
  // said with the wrong elements, where to look first (known_mpi_faults.hpp).
  virtual std::string known_fault(const std::string& /*type*/, const std::string& /*redop*/) const {
    return "";
  }

  // A backend over some members of this one: those of the processes that passed the same `color`
  // and `key` to World::split, which gave `sub_world` (nullptr where color < 0). Every process of
  // this backend calls it, in the same order; non-members get nullptr. MPI runs on the sub-world's
  // communicator; NCCL splits its communicators (ncclCommSplit), so one engine serves every pair.
  virtual std::unique_ptr<CollectiveBackend> split(World* /*sub_world*/, int /*color*/,
                                                   int /*key*/) {
    throw std::logic_error("the " + name() + " backend cannot be split");
  }
};

}  // namespace fabcheck
