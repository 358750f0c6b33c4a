// The exit code of rank 0, left for the launch script (scripts/mpirun.sh) that cannot tell it from
// mpirun's own: mpirun returns 1 both when fabcheck found a FAIL and when it could not start it.
#pragma once

namespace fabcheck {

// Environment variable naming a folder the launch script made for this (0700, its own): rank 0
// (or the only process) creates FILE "exit-code" in it (O_EXCL, relative to the folder it opened)
// holding `code` and a newline. Unset: nothing is written. A folder refused (another user's, open
// to others) or a file that exists already: a warning on stderr, nothing written, so the script
// reads the run as incomplete.
inline constexpr const char* kExitDirVariable = "FABCHECK_EXIT_DIR";
void report_exit_code(int code);

}  // namespace fabcheck
