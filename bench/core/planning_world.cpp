// The planning world: hosts laid out from the job's shape; every collective refused.
#include "bench/core/planning_world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace fabcheck {
namespace {

// The job as the launcher describes it; nothing runs in it.
class PlanningWorld final : public World {
 public:
  explicit PlanningWorld(const JobShape& job) : mpi_(job.mpi) {
    std::vector<std::string> hosts;
    const int per_host = std::max(1, job.ranks_per_host);
    for (int rank = 0; rank < std::max(1, job.ranks); ++rank) {
      const int host = rank / per_host;
      hosts.push_back(host == 0 ? local_hostname() : fmt::format("host-{}", host + 1));
    }
    set_layout(0, std::move(hosts));
  }
  bool is_mpi() const override { return mpi_; }
  void barrier() override { refuse(); }
  void max_in_place(std::vector<double>&) override { refuse(); }
  void sum_in_place(std::vector<double>&) override { refuse(); }
  void checkpoint(const std::string&, double) override {}

 private:
  std::vector<std::string> gather_to_root(const std::string&) override { refuse(); }
  std::string broadcast_from_root(const std::string&) override { refuse(); }
  [[noreturn]] static void refuse() {
    throw std::logic_error("a planning world runs nothing (an applicability check communicated)");
  }
  bool mpi_;
};

}  // namespace

std::unique_ptr<World> make_planning_world(const JobShape& job) {
  return std::make_unique<PlanningWorld>(job);
}

}  // namespace fabcheck
