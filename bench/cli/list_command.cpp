// `fabcheck list`: every probe, and whether it applies on this node or is waived and why.
#include <cstdio>

#include "bench/cli/commands.hpp"

namespace fabcheck {

int list_command(const Registry& registry, const std::string& backend, int argc, char** argv) {
  // Judged in the World a run would have (MPI when built with it), so the answer matches `run`.
  std::unique_ptr<World> world = make_mpi_world(&argc, &argv);
  if (!world) world = make_single_world();
  if (!world->is_root()) return 0;
  RunOptions options;
  options.backend = backend;
  std::printf("%-24s %-8s %s\n", "probe", "here", "what it measures / why waived");
  for (Probe* probe : registry.all()) {
    const Applicability applicability = probe->applies(*world, options);
    std::printf(
        "%-24s %-8s %s\n", probe->id().c_str(), applicability.applies ? "runs" : "WAIVED",
        applicability.applies ? probe->description().c_str() : applicability.reason.c_str());
  }
  return 0;
}

}  // namespace fabcheck
