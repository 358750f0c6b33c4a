// Test double: a World whose ranks are threads of one process, with real collective semantics (a
// collective returns only when every rank entered it), so cross-rank behaviour is tested without
// MPI.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/core/world.hpp"

namespace fabcheck::testing {

// What the ranks of one ThreadWorld share: an all-gather rendezvous. A rank that waits longer than
// `patience` throws, so a test whose ranks disagree on the collectives fails instead of hanging.
class ThreadRendezvous {
 public:
  explicit ThreadRendezvous(int ranks,
                            std::chrono::milliseconds patience = std::chrono::seconds(10))
      : slots_(static_cast<std::size_t>(ranks)), patience_(patience) {}

  std::vector<std::string> all_gather(int rank, std::string mine) {
    std::unique_lock lock(mutex_);
    slots_[static_cast<std::size_t>(rank)] = std::move(mine);
    const std::uint64_t generation = generation_;
    if (++arrived_ == static_cast<int>(slots_.size())) {
      result_ = slots_;
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return result_;
    }
    if (!changed_.wait_for(lock, patience_, [&] { return generation_ != generation; }))
      throw std::runtime_error("ThreadWorld: rank " + std::to_string(rank) +
                               " waited in a collective that another rank never entered");
    return result_;
  }
  int size() const { return static_cast<int>(slots_.size()); }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> slots_;
  std::vector<std::string> result_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  std::chrono::milliseconds patience_;
};

class ThreadWorld final : public World {
 public:
  ThreadWorld(ThreadRendezvous& rendezvous, int rank, std::vector<std::string> hosts)
      : rendezvous_(rendezvous) {
    set_layout(rank, std::move(hosts));
  }

  bool is_mpi() const override { return true; }
  void barrier() override { rendezvous_.all_gather(rank(), {}); }
  void max_in_place(std::vector<double>& values) override { combine(values, true); }
  void sum_in_place(std::vector<double>& values) override { combine(values, false); }
  void checkpoint(const std::string&, double) override {}

 private:
  std::vector<std::string> gather_to_root(const std::string& mine) override {
    auto all = rendezvous_.all_gather(rank(), mine);
    if (!is_root()) return {};
    return all;
  }
  std::string broadcast_from_root(const std::string& value) override {
    return rendezvous_.all_gather(rank(), is_root() ? value : std::string()).front();
  }
  void combine(std::vector<double>& values, bool maximum) {
    const std::string mine(reinterpret_cast<const char*>(values.data()),
                           values.size() * sizeof(double));
    std::vector<double> result(values.size(),
                               maximum ? -std::numeric_limits<double>::infinity() : 0.0);
    for (const auto& part : rendezvous_.all_gather(rank(), mine)) {
      const auto* theirs = reinterpret_cast<const double*>(part.data());
      for (std::size_t i = 0; i < values.size(); ++i)
        result[i] = maximum ? std::max(result[i], theirs[i]) : result[i] + theirs[i];
    }
    values = std::move(result);
  }

  ThreadRendezvous& rendezvous_;
};

// Runs `body(world)` on `hosts.size()` threads, one ThreadWorld each; returns when all have ended.
// What a rank throws is kept in `errors[rank]` ("" when it returned normally).
inline std::vector<std::string> run_ranks(const std::vector<std::string>& hosts,
                                          const std::function<void(World&)>& body) {
  ThreadRendezvous rendezvous(static_cast<int>(hosts.size()));
  std::vector<std::string> errors(hosts.size());
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    threads.emplace_back([&, r] {
      ThreadWorld world(rendezvous, static_cast<int>(r), hosts);
      try {
        body(world);
      } catch (const std::exception& error) {
        errors[r] = error.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return errors;
}

}  // namespace fabcheck::testing
