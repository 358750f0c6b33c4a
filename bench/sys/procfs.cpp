// /proc read: whole files, stat fields, environment blocks, the pid list, this process's age.
#include "bench/sys/procfs.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace fabcheck {
namespace {

// The fields of /proc/PID/stat after the command name, which is in parentheses and may hold
// spaces or parentheses itself: everything after the last ')'.
std::string stat_fields_after_name(const std::string& stat) {
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 > stat.size() ? std::string()
                                                               : stat.substr(close + 2);
}

}  // namespace

std::string read_proc_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

char process_state(pid_t pid) {
  const std::string fields =
      stat_fields_after_name(read_proc_file("/proc/" + std::to_string(pid) + "/stat"));
  return fields.empty() ? '?' : fields.front();
}

bool is_stopped_state(char state) { return state == 'T' || state == 't'; }

std::string process_environment(pid_t pid) {
  return read_proc_file("/proc/" + std::to_string(pid) + "/environ");
}

std::string own_environment() { return read_proc_file("/proc/self/environ"); }

std::vector<pid_t> process_ids() {
  std::vector<pid_t> pids;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/proc", error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return pids;
}

double process_age_s() {
  std::istringstream fields(stat_fields_after_name(read_proc_file("/proc/self/stat")));
  // starttime is field 22; the state (field 3) is the first after the name.
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long start_ticks = 0;
  double uptime = 0;
  if (!(fields >> start_ticks) || !(std::ifstream("/proc/uptime") >> uptime)) return 0;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return 0;
  return std::max(0.0, uptime - static_cast<double>(start_ticks) / static_cast<double>(ticks));
}

}  // namespace fabcheck
