// cgroup CPU limits: the process's cgroup from /proc/self/cgroup, limits walked up to the root.
#include "host/cgroup_cpu.hpp"

#include <fstream>
#include <sstream>

#include "bench/sys/cpu_list.hpp"
#include "bench/sys/sysfs_file.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

struct CgroupLine {
  std::string controllers;  // "" for v2, "cpu,cpuacct" for v1
  std::string path;
};

std::vector<CgroupLine> parse_proc_cgroup(const std::string& text) {
  std::vector<CgroupLine> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    lines.push_back({line.substr(first + 1, second - first - 1), line.substr(second + 1)});
  }
  return lines;
}

bool has_controller(const std::string& list, const std::string& name) {
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == name) return true;
  }
  return false;
}

// Directories from `leaf` up to the controller's root, leaf first.
std::vector<std::filesystem::path> up_to_root(const std::filesystem::path& mount,
                                              const std::string& path) {
  std::vector<std::filesystem::path> dirs;
  std::filesystem::path relative = std::filesystem::path(path).relative_path();
  while (true) {
    dirs.push_back(mount / relative);
    if (relative.empty()) break;
    relative = relative.parent_path();
  }
  return dirs;
}

void tighten(CgroupCpuLimits& limits, double cores, const std::filesystem::path& file) {
  if (!limits.quota_cores || cores < *limits.quota_cores) {
    limits.quota_cores = cores;
    limits.quota_file = file.string();
  }
}

void read_cpuset(CgroupCpuLimits& limits, const std::vector<std::filesystem::path>& dirs,
                 std::initializer_list<const char*> names) {
  // The effective list where the kernel gives one; else the first ancestor that sets cpus.
  for (const auto& dir : dirs) {
    for (const char* name : names) {
      const auto text = read_sysfs_text(dir / name);
      if (!text || text->empty()) continue;
      if (auto cpus = parse_cpu_list(*text)) {
        limits.cpuset = *cpus;
        limits.cpuset_file = (dir / name).string();
        return;
      }
    }
  }
}

}  // namespace

CgroupCpuLimits read_cgroup_cpu_limits(const std::filesystem::path& root,
                                       const std::string& proc_self_cgroup) {
  CgroupCpuLimits limits;
  const auto base = root / "sys/fs/cgroup";
  const auto lines = parse_proc_cgroup(proc_self_cgroup);
  const CgroupLine* cpu_v1 = nullptr;
  const CgroupLine* cpuset_v1 = nullptr;
  const CgroupLine* unified = nullptr;
  for (const auto& line : lines) {
    if (line.controllers.empty()) unified = &line;
    if (has_controller(line.controllers, "cpu")) cpu_v1 = &line;
    if (has_controller(line.controllers, "cpuset")) cpuset_v1 = &line;
  }
  if (cpu_v1 != nullptr || cpuset_v1 != nullptr) {
    limits.version = 1;
    if (cpu_v1 != nullptr) {
      limits.path = cpu_v1->path;
      // Mounted as "cpu,cpuacct" with "cpu" a link to it on most distributions.
      std::filesystem::path mount = base / cpu_v1->controllers;
      if (!std::filesystem::exists(mount)) mount = base / "cpu";
      for (const auto& dir : up_to_root(mount, cpu_v1->path)) {
        const auto quota =
            text::parse_number(read_sysfs_text(dir / "cpu.cfs_quota_us").value_or(""));
        const auto period =
            text::parse_number(read_sysfs_text(dir / "cpu.cfs_period_us").value_or(""));
        if (quota && period && *quota > 0 && *period > 0)
          tighten(limits, *quota / *period, dir / "cpu.cfs_quota_us");
      }
    }
    if (cpuset_v1 != nullptr) {
      if (limits.path.empty()) limits.path = cpuset_v1->path;
      read_cpuset(limits, up_to_root(base / "cpuset", cpuset_v1->path),
                  {"cpuset.effective_cpus", "cpuset.cpus"});
    }
    return limits;
  }
  if (unified != nullptr) {
    limits.version = 2;
    limits.path = unified->path;
    const auto dirs = up_to_root(base, unified->path);
    for (const auto& dir : dirs) {
      const auto text = read_sysfs_text(dir / "cpu.max");
      if (!text) continue;
      const auto fields = text::split_whitespace(*text);
      if (fields.size() != 2 || fields[0] == "max") continue;
      const auto quota = text::parse_number(fields[0]);
      const auto period = text::parse_number(fields[1]);
      if (quota && period && *quota > 0 && *period > 0)
        tighten(limits, *quota / *period, dir / "cpu.max");
    }
    read_cpuset(limits, dirs, {"cpuset.cpus.effective", "cpuset.cpus"});
  }
  return limits;
}

CgroupCpuLimits this_process_cgroup_cpu_limits(const std::filesystem::path& root) {
  std::ifstream in(root / "proc/self/cgroup");
  std::ostringstream text;
  text << in.rdbuf();
  return read_cgroup_cpu_limits(root, text.str());
}

}  // namespace fabcheck
