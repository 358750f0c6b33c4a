// World: the ranks of this run (MPI or a single process), their hosts, and the few collectives the
// framework itself needs (barrier, combine, gather to the root).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
  // Gathers one string from every rank to the root (rank order); other ranks get an empty vector.
  virtual std::vector<std::string> gather_to_root(const std::string& mine) = 0;
  // The root's value, on every rank.
  virtual std::string broadcast_from_root(const std::string& value) = 0;

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

 private:
  int rank_ = 0;
  std::vector<std::string> hosts_{std::string()};
  int local_rank_ = 0;
  int local_size_ = 1;
  std::atomic<std::uint64_t>* progress_;  // this process's RankStatus::progress
};

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

// Ranks per host from host names: returns (local_rank, local_size) of `rank`.
std::pair<int, int> local_rank_of(const std::vector<std::string>& hosts, int rank);

}  // namespace fabcheck
