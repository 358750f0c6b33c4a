// Rank 0's exit code written for scripts/mpirun.sh, into the folder it named.
#include "bench/cli/exit_report.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bench/sys/dir_handle.hpp"
#include "bench/sys/launcher.hpp"

namespace fabcheck {

void report_exit_code(int code) {
  const char* folder = std::getenv(kExitDirVariable);
  if (folder == nullptr || *folder == '\0' || launcher_rank() > 0) return;
  try {
    const DirHandle dir = DirHandle::open_output_folder(folder, kExitDirVariable);
    const UniqueFd file = dir.create_file("exit-code", 0600);
    if (const int error = write_all(file.get(), std::to_string(code) + "\n"); error != 0) {
      std::fprintf(stderr, "fabcheck: %s=%s: exit-code not written (errno %d)\n", kExitDirVariable,
                   folder, error);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fabcheck: %s: exit-code not written: %s\n", kExitDirVariable,
                 error.what());
  }
}

}  // namespace fabcheck
