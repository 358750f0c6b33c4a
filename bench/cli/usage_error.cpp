// A usage error: printed by rank 0, handed to the sentinel elsewhere.
#include "bench/cli/usage_error.hpp"

#include <cstdio>

#include "bench/core/rank_status.hpp"
#include "bench/sys/launcher.hpp"

namespace fabcheck {

void report_usage_error(const std::string& message) {
  if (launcher_rank() == 0) {
    std::fprintf(stderr, "fabcheck: %s\n", message.c_str());
  } else {
    rank_status().exit_note.store(message);
  }
}

}  // namespace fabcheck
