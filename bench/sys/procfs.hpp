// Processes as /proc shows them: a file read whole, a process's state letter, its environment
// block, the pids there are, and how long this process has been running.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fabcheck {

// The whole content of a /proc file (environ holds NUL bytes); "" when it cannot be read.
std::string read_proc_file(const std::filesystem::path& path);

// The state letter of a process from /proc/PID/stat ('R', 'S', 'T' stopped, 't' traced, ...);
// '?' when it cannot be read (gone, another pid namespace).
char process_state(pid_t pid);

// True for 'T' and 't': stopped by a signal (SIGSTOP) or by a debugger.
bool is_stopped_state(char state);

// The NUL-separated environment block of a process (/proc/PID/environ), "" when unreadable; of
// this process with own_environment().
std::string process_environment(pid_t pid);
std::string own_environment();

// Every process id listed in /proc, in directory order.
std::vector<pid_t> process_ids();

// Seconds since this process started (/proc/self/stat starttime against /proc/uptime); 0 when
// they cannot be read.
double process_age_s();

}  // namespace fabcheck
