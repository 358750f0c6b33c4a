// SingleWorld: one process without MPI; its sentinel (when it has one) bounds every step.
#include "bench/core/rank_status.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

// The one rank of a SingleWorld split off: no checkpoints of its own; its progress marks go to
// this process's page like the parent's.
class SoloSubWorld final : public World {
 public:
  explicit SoloSubWorld(const World* parent) { set_layout(0, parent->hosts()); }
  bool is_mpi() const override { return false; }
  void barrier() override {}
  void max_in_place(std::vector<double>&) override {}
  void sum_in_place(std::vector<double>&) override {}
  std::unique_ptr<World> split(int color, int /*key*/) override {
    return color < 0 ? nullptr : std::make_unique<SoloSubWorld>(this);
  }
  void checkpoint(const std::string&, double) override {}

 private:
  std::vector<std::string> gather_to_root(const std::string& mine) override { return {mine}; }
  std::string broadcast_from_root(const std::string& value) override { return value; }
};

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
  std::unique_ptr<World> split(int color, int /*key*/) override {
    return color < 0 ? nullptr : std::make_unique<SoloSubWorld>(this);
  }
  void checkpoint(const std::string& label, double timeout_s) override {
    rank_status().begin_step(phase_++, label, timeout_s);
  }

 private:
  std::vector<std::string> gather_to_root(const std::string& mine) override { return {mine}; }
  std::string broadcast_from_root(const std::string& value) override { return value; }
  int phase_ = 0;
};

}  // namespace

std::unique_ptr<World> make_single_world() { return std::make_unique<SingleWorld>(); }

}  // namespace fabcheck
