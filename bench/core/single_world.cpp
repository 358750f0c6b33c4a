// SingleWorld: one process without MPI; the watchdog still bounds every step.
#include <unistd.h>

#include "bench/core/watchdog.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

class SingleWorld final : public World {
 public:
  explicit SingleWorld(HangHandler on_hang)
      : watchdog_(
            {"rank 0 (" + local_hostname() + ")"}, std::move(on_hang),
            [this] { watchdog_.progress(0, progress()); }, [] { _exit(3); }) {
    set_layout(0, {local_hostname()});
    watchdog_.start();
  }
  ~SingleWorld() override {
    checkpoint("finish", 60);
    watchdog_.stop_when_all_reached(phase_ - 1);
  }

  bool is_mpi() const override { return false; }
  void barrier() override {}
  void max_in_place(std::vector<double>&) override {}
  void sum_in_place(std::vector<double>&) override {}
  std::vector<std::string> gather_to_root(const std::string& mine) override { return {mine}; }
  std::string broadcast_from_root(const std::string& value) override { return value; }
  void checkpoint(const std::string& label, double timeout_s) override {
    watchdog_.arrive(0, phase_++, label, timeout_s);
  }

 private:
  Watchdog watchdog_;
  int phase_ = 0;
};

}  // namespace

std::unique_ptr<World> make_single_world(HangHandler on_hang) {
  return std::make_unique<SingleWorld>(std::move(on_hang));
}

}  // namespace fabcheck
