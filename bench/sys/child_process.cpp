// Running an external tool (perftest) as a child process: output captured, time limited, pinned.
#include "bench/sys/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bench/sys/timer.hpp"

namespace fabcheck {

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<int>& cpus) {
  std::string program = argv.empty() ? "" : find_in_path(argv.front());
  if (program.empty()) {
    result_.problem = (argv.empty() ? std::string("empty command") : argv.front()) + " not found";
    return;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result_.problem = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    if (!cpus.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int cpu : cpus) {
        if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
      }
      sched_setaffinity(0, sizeof set, &set);  // best effort: a wrong list leaves it unpinned
    }
    ::signal(SIGPIPE, SIG_DFL);  // the rank ignores it (bench/core/interrupt.cpp); tools expect it
    execv(program.c_str(), args.data());
    _exit(127);
  }
  close(fds[1]);
  if (pid_ < 0) {
    close(fds[0]);
    result_.problem = std::string("fork: ") + std::strerror(errno);
    return;
  }
  output_fd_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (output_fd_ >= 0) close(output_fd_);
}

ChildResult ChildProcess::wait(double timeout_s,
                               const std::function<void(std::string_view)>& on_output) {
  if (pid_ <= 0) return result_;
  double deadline = now_seconds() + timeout_s;
  char buffer[4096];
  while (output_fd_ >= 0) {
    double left = deadline - now_seconds();
    if (left <= 0) {
      result_.timed_out = true;
      kill(pid_, SIGKILL);
      break;
    }
    pollfd fd{output_fd_, POLLIN, 0};
    int ready = poll(&fd, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    ssize_t n = read(output_fd_, buffer, sizeof buffer);
    if (n <= 0) {
      close(output_fd_);
      output_fd_ = -1;
    } else if (on_output) {
      on_output(std::string_view(buffer, static_cast<std::size_t>(n)));
    } else if (result_.output.size() < (1u << 20)) {
      result_.output.append(buffer, static_cast<std::size_t>(n));
    }
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
  return result_;
}

}  // namespace fabcheck
