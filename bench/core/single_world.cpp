// SingleWorld: one process without MPI; its sentinel (when it has one) bounds every step.
#include "bench/core/rank_status.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

class SingleWorld final : public World {
 public:
  SingleWorld() {
    set_layout(0, {local_hostname()});
    RankStatus& status = rank_status();
    status.size.store(1);
    status.rank.store(0);
  }
  ~SingleWorld() override { checkpoint("finish", 60); }

  bool is_mpi() const override { return false; }
  void barrier() override {}
  void max_in_place(std::vector<double>&) override {}
  void sum_in_place(std::vector<double>&) override {}
  std::vector<std::string> gather_to_root(const std::string& mine) override { return {mine}; }
  std::string broadcast_from_root(const std::string& value) override { return value; }
  void checkpoint(const std::string& label, double timeout_s) override {
    rank_status().begin_step(phase_++, label, timeout_s);
  }

 private:
  int phase_ = 0;
};

}  // namespace

std::unique_ptr<World> make_single_world() { return std::make_unique<SingleWorld>(); }

}  // namespace fabcheck
