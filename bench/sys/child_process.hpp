// Running an external tool (perftest) as a child process: output captured, time limited,
// optionally pinned to a set of CPUs.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

struct ChildResult {
  int exit_code = -1;      // -1 when killed or never started
  bool timed_out = false;  // killed after the time limit
  std::string output;      // stdout and stderr together
  std::string problem;     // why it could not start
};

class ChildProcess {
 public:
  // Starts argv[0] (searched in PATH) with stdout and stderr to a pipe. `cpus` (may be empty)
  // restricts where it runs, e.g. to the CPUs of its HCA's NUMA node.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<int>& cpus);
  ~ChildProcess();  // kills the child if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits at most `timeout_s` seconds for it to end, reading its output meanwhile (the first MiB
  // kept in ChildResult::output, or every piece handed to `on_output` as it comes, kept nowhere).
  ChildResult wait(double timeout_s,
                   const std::function<void(std::string_view)>& on_output = nullptr);

 private:
  pid_t pid_ = -1;
  int output_fd_ = -1;
  ChildResult result_;
};

// Full path of an executable found in PATH, "" when none.
std::string find_in_path(const std::string& name);

}  // namespace fabcheck
