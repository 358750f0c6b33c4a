// Evidence on a failing node: targets from the findings, each tool run bounded, files bounded.
#include "bench/cli/evidence.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "bench/core/nccl_log_files.hpp"
#include "bench/core/world.hpp"
#include "bench/sys/child_process.hpp"
#include "bench/sys/text_scan.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `word` occurs in `text` with no word character on either side.
bool contains_word(std::string_view text, std::string_view word) {
  if (word.empty()) return false;
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    const bool left = at == 0 || !word_char(text[at - 1]);
    const std::size_t end = at + word.size();
    const bool right = end >= text.size() || !word_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

// A plain file name for a bus id or device: "0000:9a:00.0" -> "0000_9a_00.0".
std::string file_part(const std::string& text) {
  std::string out;
  for (const char c : text)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out;
}

// What gather_evidence has done so far: the files, the index lines, the time and bytes left.
class Collection {
 public:
  explicit Collection(const EvidenceLimits& limits) : limits_(limits) {}

  double seconds_left() const { return limits_.total_s - clock_.elapsed_s(); }

  // Adds a file (cut to the per-file limit) unless the node's total is spent.
  void add(const std::string& name, std::string text, const std::string& how,
           bool source_cut = false) {
    text = bounded(std::move(text), limits_.file_bytes, source_cut);
    if (bytes_ + text.size() > limits_.total_bytes) {
      note(name + ": left out, the evidence of this node reached " +
           std::to_string(limits_.total_bytes) + " bytes (" + how + ")");
      return;
    }
    bytes_ += text.size();
    note(fmt::format("{}: {} ({} bytes)", name, how, text.size()));
    files_.push_back({name, std::move(text)});
  }
  void note(const std::string& line) { index_ += line + "\n"; }

  // Runs `argv` into `name` within the limits; a missing tool, a failure to start or a timeout
  // is noted, never fatal.
  void run(const std::string& name, const std::vector<std::string>& argv) {
    const std::string shown = text::join(argv, " ");
    if (find_in_path(argv.front()).empty()) {
      note(name + ": not gathered, " + argv.front() + " is not installed here (not in PATH)");
      return;
    }
    const double budget = std::min(limits_.command_timeout_s, seconds_left());
    if (budget <= 0.05) {
      note(name + ": not gathered, the evidence time of this node (" +
           fmt::format("{:g}", limits_.total_s) + " s) was spent");
      return;
    }
    Stopwatch took;
    ChildProcess child(argv, {});
    const ChildResult result = child.wait(budget);
    if (!result.problem.empty()) {
      note(name + ": `" + shown + "` could not start: " + result.problem);
      return;
    }
    std::string how = "`" + shown + "`, ";
    if (result.timed_out) {
      how += fmt::format("stopped after its limit of {:.1f} s (output so far kept)", budget);
    } else {
      how += fmt::format("exit {} in {:.2f} s", result.exit_code, took.elapsed_s());
    }
    add(name, result.output, how, result.output.size() >= (1u << 20));
  }

  std::vector<EvidenceFile> finish() {
    std::vector<EvidenceFile> out;
    out.push_back({"index.txt", index_});
    for (auto& file : files_) out.push_back(std::move(file));
    return out;
  }

 private:
  const EvidenceLimits& limits_;
  Stopwatch clock_;
  std::size_t bytes_ = 0;
  std::string index_;
  std::vector<EvidenceFile> files_;
};

// Kernel-log lines of the last `window_s` seconds that mention a target, from /dev/kmsg (this
// boot's ring buffer, read record by record with its own time stamps); "" and `why` when it
// cannot be read.
bool kmsg_lines(const EvidenceTargets& targets, double window_s, std::size_t limit,
                std::string& lines, std::size_t& matched, std::string& why) {
  const int fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = std::string("/dev/kmsg: ") + std::strerror(errno);
    return false;
  }
  timespec boot{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  const double now_s = static_cast<double>(boot.tv_sec) + static_cast<double>(boot.tv_nsec) / 1e9;
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  const double booted_at = static_cast<double>(wall.tv_sec) - now_s;
  char record[8192];
  while (true) {
    const ssize_t got = ::read(fd, record, sizeof record);
    if (got < 0 && (errno == EINTR || errno == EPIPE)) continue;
    if (got <= 0) break;
    const std::string_view text(record, static_cast<std::size_t>(got));
    // "prio,seq,usec,flags;message\n KEY=value..."
    const std::size_t semicolon = text.find(';');
    if (semicolon == std::string_view::npos) continue;
    const std::string_view header = text.substr(0, semicolon);
    const std::size_t first = header.find(',');
    const std::size_t second =
        first == std::string_view::npos ? first : header.find(',', first + 1);
    if (second == std::string_view::npos) continue;
    const double at_s = std::atof(std::string(header.substr(second + 1)).c_str()) / 1e6;
    if (at_s < now_s - window_s) continue;
    std::string_view message = text.substr(semicolon + 1);
    message = message.substr(0, message.find('\n'));
    if (!mentions_target(message, targets)) continue;
    ++matched;
    if (lines.size() < limit) {
      lines += utc_timestamp(static_cast<std::time_t>(booted_at + at_s)) + " " +
               std::string(message) + "\n";
    }
  }
  ::close(fd);
  return true;
}

void gather_kernel_log(Collection& collection, const EvidenceTargets& targets,
                       const EvidenceLimits& limits) {
  const std::string name = "kernel-log.txt";
  if (targets.bus_ids.empty() && targets.devices.empty()) {
    collection.note(name +
                    ": not gathered, the failures name no device of this node (no bus "
                    "id, RDMA device or interface)");
    return;
  }
  std::string lines;
  std::size_t matched = 0;
  std::string why;
  const std::string window = fmt::format("{:g} s", limits.kernel_log_window_s);
  if (kmsg_lines(targets, limits.kernel_log_window_s, limits.file_bytes, lines, matched, why)) {
    collection.add(name, lines,
                   fmt::format("/dev/kmsg, the last {}: {} line(s) mention the failing devices",
                               window, matched));
    return;
  }
  // No /dev/kmsg (a container without it, kernel.dmesg_restrict for a non-root user): dmesg.
  collection.note(name + ": " + why + "; trying dmesg");
  if (find_in_path("dmesg").empty()) {
    collection.note(name + ": not gathered, dmesg is not installed here either");
    return;
  }
  ChildProcess child({"dmesg", "--time-format", "iso", "--since",
                      fmt::format("-{}s", static_cast<long long>(limits.kernel_log_window_s))},
                     {});
  const ChildResult result =
      child.wait(std::min(limits.command_timeout_s, std::max(0.1, collection.seconds_left())));
  std::istringstream in(result.output);
  std::string line;
  while (std::getline(in, line)) {
    if (!mentions_target(line, targets)) continue;
    ++matched;
    lines += line + "\n";
  }
  collection.add(name, lines,
                 fmt::format("`dmesg --time-format iso --since -{}s`, exit {}{}: {} line(s) "
                             "mention the failing devices",
                             static_cast<long long>(limits.kernel_log_window_s), result.exit_code,
                             result.timed_out ? " (stopped at its limit)" : "", matched),
                 result.output.size() >= (1u << 20));
}

void gather_nccl(Collection& collection, const fs::path& run_dir) {
  const std::string host = local_hostname();
  const auto logs = nccl_logs_by_probe(nccl_log_dir(run_dir), host);
  if (logs.empty()) {
    collection.note("nccl.txt: no NCCL debug log of this host in " +
                    nccl_log_dir(run_dir).string() + " (no NCCL probe ran here)");
  } else {
    std::string text;
    for (const auto& [probe, files] : logs) {
      for (const auto& file : files) {
        std::ifstream in(file, std::ios::binary);
        std::string content;
        // Bounded read: NCCL logs of a long run can be large; the head holds init and transport.
        content.resize(4u << 20);
        in.read(content.data(), static_cast<std::streamsize>(content.size()));
        content.resize(static_cast<std::size_t>(in.gcount()));
        text += "== " + fs::path(file).filename().string() + "\n" + nccl_evidence_lines(content);
      }
    }
    collection.add("nccl.txt", text,
                   "warnings, network, transport and NCCL_* lines of this host's NCCL logs");
  }
  // NCCL writes its topology only when NCCL_TOPO_DUMP_FILE is set (by the user: fabcheck does not
  // set it, since the dump costs every communicator a second topology pass).
  const char* dump = std::getenv("NCCL_TOPO_DUMP_FILE");
  if (dump == nullptr || *dump == '\0') {
    collection.note(
        "nccl-topology.xml: NCCL_TOPO_DUMP_FILE is not set, so NCCL wrote no topology dump (set "
        "it to a path on every node to have one; nvidia-smi-topo.txt shows the GPU topology)");
    return;
  }
  std::ifstream in(dump, std::ios::binary);
  if (!in) {
    collection.note(std::string("nccl-topology.xml: NCCL_TOPO_DUMP_FILE=") + dump +
                    " is not readable here");
    return;
  }
  std::string content(1u << 20, '\0');
  in.read(content.data(), static_cast<std::streamsize>(content.size()));
  content.resize(static_cast<std::size_t>(in.gcount()));
  collection.add("nccl-topology.xml", content,
                 std::string("the topology NCCL detected (NCCL_TOPO_DUMP_FILE=") + dump + ")",
                 content.size() >= (1u << 20));
}

}  // namespace

EvidenceTargets evidence_targets(const std::vector<Finding>& failures,
                                 const std::vector<std::string>& known_devices) {
  static const std::regex bus_id("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
  std::set<std::string> bus_ids;
  std::set<std::string> devices;
  for (const Finding& f : failures) {
    const std::string text = f.subject + "\n" + f.message + "\n" + f.evidence;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), bus_id);
         it != std::sregex_iterator(); ++it) {
      bus_ids.insert(text::lower(it->str()));
    }
    for (const std::string& device : known_devices) {
      if (contains_word(text, device)) devices.insert(device);
    }
  }
  return {{bus_ids.begin(), bus_ids.end()}, {devices.begin(), devices.end()}};
}

std::vector<std::string> local_device_names(const fs::path& sysfs_root) {
  std::vector<std::string> names;
  for (const char* folder : {"sys/class/infiniband", "sys/class/net"}) {
    std::error_code error;
    for (fs::directory_iterator it(sysfs_root / folder, error), end; !error && it != end;
         it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (name != "lo") names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool mentions_target(std::string_view line, const EvidenceTargets& targets) {
  const std::string lowered = text::lower(line);
  for (const std::string& bus : targets.bus_ids) {
    // "0000:9a:00.0", "9a:00.0" (lspci and many drivers), "0000:9a:00" (NVIDIA's Xid lines).
    if (lowered.find(bus) != std::string::npos) return true;
    if (bus.size() == 12 && contains_word(lowered, bus.substr(5))) return true;
    if (bus.size() == 12 && lowered.find("pci:" + bus.substr(0, 10)) != std::string::npos)
      return true;
  }
  for (const std::string& device : targets.devices) {
    if (contains_word(line, device)) return true;
  }
  return false;
}

std::string nccl_evidence_lines(std::string_view text) {
  static constexpr std::string_view kWorthReading[] = {
      " WARN ",        "NET/",  "via NET",       "via P2P", "via SHM",
      "GDR",           "NCCL_", "Using network", "NVLS",    "Connected all",
      "Init COMPLETE", "error", "Error",         "failed",  "timeout"};
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    for (const std::string_view key : kWorthReading) {
      if (line.find(key) != std::string_view::npos) {
        out += std::string(line) + "\n";
        break;
      }
    }
    start = end + 1;
  }
  return out;
}

std::string bounded(std::string text, std::size_t limit, bool source_cut) {
  if (text.size() <= limit) {
    if (source_cut) text += "\n[fabcheck: the source stopped here: more output was not read]\n";
    return text;
  }
  const std::size_t left_out = text.size() - limit;
  text.resize(limit);
  text += fmt::format("\n[fabcheck: cut at {} bytes: {}{} more bytes not kept]\n", limit,
                      source_cut ? "at least " : "", left_out);
  return text;
}

std::vector<EvidenceFile> gather_evidence(const std::vector<Finding>& failures,
                                          const fs::path& run_dir, const EvidenceLimits& limits) {
  Collection collection(limits);
  const EvidenceTargets targets = evidence_targets(failures, local_device_names());
  collection.note(
      fmt::format("# evidence of {} FAIL finding(s) on {}", failures.size(), local_hostname()));
  std::string named;
  for (const auto& bus : targets.bus_ids) named += " " + bus;
  for (const auto& device : targets.devices) named += " " + device;
  collection.note("# devices they name:" + (named.empty() ? std::string(" none") : named));
  {
    std::string text;
    for (const Finding& f : failures) {
      text += f.message + "\n";
      if (!f.evidence.empty()) text += "  evidence: " + f.evidence + "\n";
      if (!f.remedy.empty()) text += "  remedy: " + f.remedy + "\n";
    }
    collection.add("failures.txt", text, "the FAIL findings this evidence is about");
  }
  gather_nccl(collection, run_dir);
  gather_kernel_log(collection, targets, limits);
  for (const std::string& bus : targets.bus_ids)
    collection.run("lspci-" + file_part(bus) + ".txt", {"lspci", "-vv", "-s", bus});
  collection.run("nvidia-smi-q.txt", {"nvidia-smi", "-q"});
  collection.run("nvidia-smi-topo.txt", {"nvidia-smi", "topo", "-m"});
  collection.run("ibstat.txt", {"ibstat"});
  collection.run("ibv_devinfo.txt", {"ibv_devinfo", "-v"});
  return collection.finish();
}

}  // namespace fabcheck
