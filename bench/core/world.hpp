// World: the ranks of this run (MPI or a single process), their hosts, and the few collectives the
// framework itself needs (barrier, combine, typed gather and broadcast).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/core/wire.hpp"
#include "bench/sys/launcher.hpp"

namespace fabcheck {

class World {
 public:
  World();
  virtual ~World() = default;

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(hosts_.size()); }
  bool is_root() const { return rank_ == 0; }
  const std::string& host() const { return hosts_[static_cast<std::size_t>(rank_)]; }
  // Host of each rank, in rank order.
  const std::vector<std::string>& hosts() const { return hosts_; }
  // Rank among the ranks of the same host, and how many share it.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  // Distinct hosts, in order of their lowest rank.
  std::vector<std::string> distinct_hosts() const;
  // The same, comma-separated: the host of a measurement combined across ranks ("node-a,node-b").
  std::string joined_hosts() const;
  // "rank 3 (node-b)"
  std::string describe_rank(int rank) const;

  virtual bool is_mpi() const = 0;
  virtual void barrier() = 0;
  // Element-wise maximum / sum across ranks; every rank gets the result.
  virtual void max_in_place(std::vector<double>& values) = 0;
  virtual void sum_in_place(std::vector<double>& values) = 0;
  // Data between ranks, typed (encoded as wire.hpp says; a struct adds wire_write/wire_read): the
  // only way anything crosses ranks besides the numeric combines above.
  // One value from every rank to the root, in rank order; other ranks get an empty vector.
  template <typename T>
  std::vector<T> gather_values(const T& mine);
  // One value from every rank, in rank order, on every rank.
  template <typename T>
  std::vector<T> all_gather_values(const T& mine);
  // The root's value on every rank (other ranks' `value` is ignored).
  template <typename T>
  T broadcast_value(const T& value);

  // The ranks that pass the same `color` (>= 0) form a World of their own, ranked by `key`, then
  // by their rank here; every rank of this World must call it, in the same order. A rank passing a
  // negative color takes part in none and gets nullptr. The sub-world's collectives involve only
  // its ranks (pairs of nodes measured side by side); its checkpoints are no-ops (the parent's
  // bound the step); its progress marks count on this process's page, as the parent's do.
  // Worlds that cannot be split (test doubles) throw std::logic_error.
  virtual std::unique_ptr<World> split(int color, int key);

  // Checkpoints are numbered steps every rank passes in the same order. Each rank's sentinel
  // (sentinel.hpp) reads them from the RankStatus page and the watchdog on rank 0's sentinel names
  // the ranks that did not arrive when a step outlives `timeout_s`.
  virtual void checkpoint(const std::string& label, double timeout_s) = 0;

  // Finer than checkpoints: a probe marks each operation it is about to enter (e.g. each timed
  // collective sample). When every rank is stuck in the same step, the watchdog names the ranks
  // whose count lags (they never entered the operation the others wait in). Cheap: an atomic add
  // on the page the sentinel reads.
  void mark_progress() { progress_->fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t progress() const { return progress_->load(std::memory_order_relaxed); }

 protected:
  void set_layout(int rank, std::vector<std::string> hosts);

  // The transport under the typed templates: one byte string from every rank to the root (rank
  // order; other ranks get an empty vector), and the root's byte string on every rank. Each World
  // implements them; only the templates call them, so no caller sends text to be parsed back.
  virtual std::vector<std::string> gather_to_root(const std::string& mine) = 0;
  virtual std::string broadcast_from_root(const std::string& value) = 0;

 private:
  int rank_ = 0;
  std::vector<std::string> hosts_{std::string()};
  int local_rank_ = 0;
  int local_size_ = 1;
  std::atomic<std::uint64_t>* progress_;  // this process's RankStatus::progress
};

template <typename T>
std::vector<T> World::gather_values(const T& mine) {
  std::vector<T> values;
  const auto parts = gather_to_root(wire_encode(mine));
  values.reserve(parts.size());
  for (std::size_t r = 0; r < parts.size(); ++r) {
    values.push_back(wire_decode<T>(parts[r], "from " + describe_rank(static_cast<int>(r))));
  }
  return values;
}

template <typename T>
std::vector<T> World::all_gather_values(const T& mine) {
  auto values = broadcast_value(gather_values(mine));
  if (values.size() != static_cast<std::size_t>(size())) {
    throw WireError("typed data between ranks: the root sent " + std::to_string(values.size()) +
                    " values for " + std::to_string(size()) + " ranks");
  }
  return values;
}

template <typename T>
T World::broadcast_value(const T& value) {
  return wire_decode<T>(broadcast_from_root(is_root() ? wire_encode(value) : std::string()),
                        "from the root");
}

// One process, no MPI.
std::unique_ptr<World> make_single_world();

// MPI_COMM_WORLD (MPI_THREAD_FUNNELED: the watchdog lives in the sentinels, apart from MPI).
// Returns nullptr when built without MPI. MPI is finalised when the World is destroyed.
std::unique_ptr<World> make_mpi_world(int* argc, char*** argv);

// True when this build has MPI.
bool mpi_available();

// Version string of the MPI library ("Open MPI v4.1.4, ..."), or "" without MPI.
std::string mpi_library_version();

// This machine's host name.
std::string local_hostname();

}  // namespace fabcheck
