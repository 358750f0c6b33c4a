// RunWriter: measurements.jsonl, findings.jsonl, summary.json and run.h5 in one run directory.
#include "results/run_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "results/hdf5_writer.hpp"
#include "results/json_text.hpp"
#include "results/junit_writer.hpp"
#include "results/node_verdicts.hpp"
#include "results/prometheus_writer.hpp"
#include "results/record_json.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

bool out_of_space(int error) { return error == ENOSPC || error == EDQUOT; }

ResultsWriteError write_error(const std::string& what, const fs::path& path, int error) {
  return ResultsWriteError("cannot " + what + " " + path.string() + ": " + std::strerror(error),
                           out_of_space(error));
}

ResultsWriteError write_error(const std::system_error& error) {
  return ResultsWriteError(error.what(), out_of_space(error.code().value()));
}

// Writes all of `bytes` at the end of `fd`; on failure cuts the file back to where it was.
void write_whole(int fd, const std::string& bytes, const fs::path& path) {
  const off_t before = ::lseek(fd, 0, SEEK_END);
  if (const int error = write_all(fd, bytes); error != 0) {
    if (before >= 0 && ::ftruncate(fd, before) != 0) {
      // Nothing more to do: the reader skips a line that does not end in a newline.
    }
    throw write_error("write", path, error);
  }
}

// Writes `bytes` as `name` in `dir` atomically (DirHandle::publish_file: a temporary file created
// exclusively in the folder, renamed over the name).
void replace_file(const DirHandle& dir, const std::string& name, const std::string& bytes) {
  try {
    dir.publish_file(name, bytes, 0644);
  } catch (const std::system_error& error) {
    throw write_error(error);
  }
}

// Removes a last line that does not end in a newline (a record cut short by a killed writer).
void cut_partial_line(const DirHandle& dir, const std::string& name) {
  UniqueFd file;
  try {
    file = dir.open_file(name, O_RDWR | O_NONBLOCK);
  } catch (const std::system_error&) {
    return;
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  const int fd = file.get();
  off_t end = ::lseek(fd, 0, SEEK_END);
  char last = '\n';
  if (end > 0 && ::pread(fd, &last, 1, end - 1) == 1 && last != '\n') {
    char buffer[4096];
    off_t keep = 0;
    for (off_t at = end; at > 0 && keep == 0;) {
      const off_t from = std::max<off_t>(0, at - static_cast<off_t>(sizeof(buffer)));
      const ssize_t got = ::pread(fd, buffer, static_cast<std::size_t>(at - from), from);
      if (got <= 0) break;
      for (ssize_t i = got - 1; i >= 0; --i) {
        if (buffer[i] == '\n') {
          keep = from + i + 1;
          break;
        }
      }
      at = from;
    }
    if (::ftruncate(fd, keep) != 0) {
      // Left as it is: readers skip a line without its newline.
    }
  }
}

constexpr const char* kReserveName = ".space-reserve";

// How much room to keep for the last summary: a quarter of what is free, at most 256 KiB, none
// when that is under 4 KiB (a nearly full filesystem).
std::uint64_t reserve_size(const DirHandle& dir) {
  struct statvfs info {};
  if (::fstatvfs(dir.fd(), &info) != 0) return 0;
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
  const std::uint64_t size = std::min<std::uint64_t>(256 * 1024, free_bytes / 4) & ~4095ull;
  return size < 4 * 1024 ? 0 : size;
}

// The last resort on a full filesystem, where not even a temporary file fits: rewrites `path` in
// place when `bytes` fit in the blocks it already has (so nothing new is needed). Not atomic, but
// a summary that says why the run stopped beats one that still says "in progress".
bool rewrite_in_place(const DirHandle& dir, const std::string& name, const std::string& bytes) {
  UniqueFd file;
  try {
    file = dir.open_file(name, O_WRONLY | O_NONBLOCK);
  } catch (const std::system_error&) {
    return false;
  }
  const int fd = file.get();
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return false;
  if (bytes.size() > static_cast<std::uint64_t>(info.st_blocks) * 512) return false;
  return ::pwrite(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()) &&
         ::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0;
}

// Opens `name` in `dir` for appending records: created exclusively, never one found there.
int create_exclusively(const DirHandle& dir, const std::string& name) {
  try {
    return dir.create_file(name, 0644, O_WRONLY | O_APPEND).release();
  } catch (const std::system_error& error) {
    throw write_error(error);
  }
}

}  // namespace

RunWriter::RunWriter(fs::path dir, bool numbered_if_taken) {
  // The run directory is made here, by this process, or not at all: a directory that exists
  // (even empty, even one this user could write) may belong to someone else, who could have
  // planted links in it, and an earlier run is never written over. It is made with mkdirat in its
  // parent, held open, and everything is created in it through its descriptor, so renaming it
  // aside and putting a folder of links in its place changes nothing that is written.
  dir = dir.lexically_normal();
  if (!dir.empty() && !dir.has_filename()) dir = dir.parent_path();  // "out/" is "out"
  const std::string name = dir.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw ConfigError(dir.string(), 0,
                      "names no new directory; a run writes only into a directory it creates");
  }
  std::error_code error;
  if (!numbered_if_taken && fs::exists(fs::symlink_status(dir, error))) {
    throw ConfigError(dir.string(), 0,
                      "run directory exists; a run writes only into a directory it creates "
                      "(choose a path that does not exist yet)");
  }
  const fs::path parent = dir.parent_path();  // "" for a name in the working directory
  const DirHandle parent_folder = DirHandle::make_output_folder(parent, "--out");
  std::string made = name;
  try {
    folder_ = numbered_if_taken ? parent_folder.make_unique_dir(name, 0755, made)
                                : parent_folder.make_dir(name, 0755);
  } catch (const std::system_error& failure) {
    throw ConfigError(
        dir.string(), 0,
        failure.code().value() == EEXIST
            ? std::string("run directory appeared while it was being created; a "
                          "run writes only into a directory it creates")
            : "cannot create run directory: " + std::string(failure.what()));
  }
  dir_ = parent / made;
  measurements_fd_ = create_exclusively(folder_, "measurements.jsonl");
  try {
    findings_fd_ = create_exclusively(folder_, "findings.jsonl");
  } catch (...) {
    ::close(measurements_fd_);
    throw;
  }
  if (const std::uint64_t size = reserve_size(folder_); size > 0) {
    try {
      UniqueFd file = folder_.create_file(kReserveName, 0600);
      int rc = ::posix_fallocate(file.get(), 0, static_cast<off_t>(size));
      if (rc == EOPNOTSUPP || rc == EINVAL) {
        try {
          write_whole(file.get(), std::string(size, '\0'), dir_ / kReserveName);
          rc = 0;
        } catch (const ResultsWriteError&) {
          rc = ENOSPC;
        }
      }
      reserved_ = rc == 0;
      if (!reserved_) folder_.remove_file(kReserveName);
    } catch (const std::system_error&) {
      // No reserve: the run goes on without one.
    }
  }
}

RunWriter::~RunWriter() {
  if (measurements_fd_ >= 0) ::close(measurements_fd_);
  if (findings_fd_ >= 0) ::close(findings_fd_);
  release_reserve();
}

void RunWriter::release_reserve() {
  if (!reserved_) return;
  reserved_ = false;
  folder_.remove_file(kReserveName);
}

void RunWriter::append(const Measurement& measurement) {
  measurements_.push_back(measurement);
  write_whole(measurements_fd_, to_jsonl_line(to_json(measurement)), dir_ / "measurements.jsonl");
}

void RunWriter::append(const Finding& finding) {
  findings_.push_back(finding);
  write_whole(findings_fd_, to_jsonl_line(to_json(finding)), dir_ / "findings.jsonl");
}

void RunWriter::write_summary(const nlohmann::json& summary) {
  const std::string text = json_text(summary, 2) + "\n";
  try {
    replace_file(folder_, "summary.json", text);
  } catch (const ResultsWriteError& error) {
    if (!error.out_of_space()) throw;
    if (reserved_) {
      release_reserve();
      try {
        replace_file(folder_, "summary.json", text);
        return;
      } catch (const ResultsWriteError&) {
      }
    }
    if (!rewrite_in_place(folder_, "summary.json", text)) throw;
  }
}

bool RunWriter::write_hdf5() {
  std::string image;
  try {
    image = hdf5_image(measurements_, findings_);
  } catch (const std::exception& error) {
    throw ResultsWriteError("run.h5 not written: " + std::string(error.what()), false);
  }
  if (image.empty()) return false;
  replace_file(folder_, "run.h5", image);
  return true;
}

namespace {

// A run that did not finish proves no node healthy: every node it names that a FAIL does not
// drain is held with the reason (a rank lost after its last probe left them all "pass", and the
// answer named nobody). The hosts come from the summary's nodes, else its hosts.
void hold_unfinished_nodes(nlohmann::json& summary, const std::string& reason) {
  std::vector<std::string> drained;
  if (const auto drain = summary.find("drain"); drain != summary.end() && drain->is_array()) {
    for (const auto& entry : *drain) {
      if (entry.is_object() && entry.value("host", nlohmann::json()).is_string())
        drained.push_back(entry["host"].get<std::string>());
    }
  }
  std::vector<std::string> hosts;
  const auto nodes = summary.find("nodes");
  if (nodes != summary.end() && nodes->is_array() && !nodes->empty()) {
    for (auto& node : *nodes) {
      if (!node.is_object() || !node.value("host", nlohmann::json()).is_string()) continue;
      if (node.value("verdict", nlohmann::json()) != "fail") node["verdict"] = "incomplete";
      hosts.push_back(node["host"].get<std::string>());
    }
  } else if (const auto listed = summary.find("hosts");
             listed != summary.end() && listed->is_array()) {
    for (const auto& host : *listed) {
      if (host.is_string()) hosts.push_back(host.get<std::string>());
    }
  }
  if (!summary["drain"].is_array()) summary["drain"] = nlohmann::json::array();
  auto& hold = summary["hold"];
  hold = nlohmann::json::array();
  for (const std::string& host : hosts) {
    if (std::find(drained.begin(), drained.end(), host) != drained.end()) continue;
    hold.push_back(node_action_json(hold_action(host, reason)));
  }
}

}  // namespace

void mark_run_incomplete(const fs::path& run_dir, const FileIdentity& made,
                         const std::string& reason, bool failed) {
  // Only the directory made: the name alone may lead elsewhere by now (renamed aside, replaced
  // by a folder of links), and nothing is then written at all.
  DirHandle dir;
  try {
    dir = DirHandle::open(run_dir);
  } catch (const std::system_error& error) {
    throw std::runtime_error(std::string(error.what()) + "; nothing written");
  }
  if (!(dir.identity() == made)) {
    throw std::runtime_error(run_dir.string() +
                             " is no longer the run directory this run made (renamed or "
                             "replaced); nothing written");
  }
  for (const char* name : {"measurements.jsonl", "findings.jsonl"}) cut_partial_line(dir, name);
  constexpr std::size_t kRecordLimit = 64u << 20;
  nlohmann::json summary = nlohmann::json::object();
  if (const auto text = read_small_file(dir, "summary.json", kRecordLimit)) {
    summary = nlohmann::json::parse(*text, nullptr, false);
  }
  if (!summary.is_object()) summary = {{"schema_version", kSchemaVersion}, {"kind", "summary"}};
  if (failed) {
    Finding finding;
    finding.severity = Severity::error;
    finding.message = reason;
    finding.remedy =
        "check the rank and host named (process stopped or killed, GPU or NIC stuck, host "
        "frozen), then rerun";
    const fs::path findings = run_dir / "findings.jsonl";
    UniqueFd file;
    try {
      // Appended to the file the run created (never created here: a findings.jsonl that is not
      // there is not the run's).
      file = dir.open_file("findings.jsonl", O_WRONLY | O_APPEND | O_NONBLOCK);
    } catch (const std::system_error& error) {
      throw write_error(error);
    }
    struct stat info {};
    if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
      throw ResultsWriteError(findings.string() + " is not a regular file", false);
    }
    write_whole(file.get(), to_jsonl_line(to_json(finding)), findings);
    auto& counts = summary["counts"];
    if (!counts.is_object()) counts = nlohmann::json::object();
    const auto& errors = counts["error"];
    counts["error"] = (errors.is_number_integer() ? errors.get<long long>() : 0) + 1;
    auto& errored = summary["probes"]["errored"];
    if (!errored.is_array()) errored = nlohmann::json::array();
    errored.push_back({{"id", ""}, {"message", reason}});
  }
  const auto& there = summary["incomplete_reason"];
  if (!there.is_string() || there.get<std::string>() == kRunInProgress)
    summary["incomplete_reason"] = reason;
  summary["finished_utc"] = nullptr;
  summary["exit_code"] = 3;
  const auto& verdict = summary["verdict"];
  if (!verdict.is_string() || verdict.get<std::string>() != "fail") summary["verdict"] = "incomplete";
  hold_unfinished_nodes(summary, summary["incomplete_reason"].get<std::string>());
  dir.remove_file(kReserveName);
  replace_file(dir, "summary.json", json_text(summary, 2) + "\n");
  // junit.xml from the findings on disk, so a pipeline reading it sees the run end incomplete.
  std::vector<Finding> findings;
  if (const auto text = read_small_file(dir, "findings.jsonl", kRecordLimit)) {
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      const auto json = nlohmann::json::parse(line, nullptr, false);
      try {
        if (json.is_object()) findings.push_back(finding_from_json(json, "findings.jsonl"));
      } catch (const std::exception&) {
        // A line this build cannot read is left out of junit.xml; findings.jsonl keeps it.
      }
    }
  }
  replace_file(dir, "junit.xml", render_junit(findings, summary));
}

void RunWriter::write_evidence(const std::string& host,
                               const std::vector<std::pair<std::string, std::string>>& files) {
  auto plain = [](const std::string& name) {
    std::string out;
    for (const char c : name) {
      const bool keep =
          std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
      out += keep ? c : '_';
    }
    if (out.empty() || out == "." || out == "..") out = "_" + out;
    return out;
  };
  // Evidence holds what its sources show only to root (kernel-log lines under
  // kernel.dmesg_restrict, NCCL's environment): no more readable than them, folders 0700 and
  // files 0600, all made in the run directory by descriptor.
  try {
    if (!evidence_) evidence_ = folder_.make_dir("evidence", 0700);
    const DirHandle folder = evidence_->make_dir(plain(host), 0700);
    for (const auto& [name, text] : files) {
      const fs::path path = folder.path() / plain(name);
      UniqueFd file = folder.create_file(plain(name), 0600, O_WRONLY | O_APPEND);
      write_whole(file.get(), text, path);
    }
  } catch (const std::system_error& error) {
    throw write_error(error);
  }
}

void RunWriter::write_junit(const nlohmann::json& summary) {
  replace_file(folder_, "junit.xml", render_junit(findings_, summary));
}

void RunWriter::write_prometheus(const nlohmann::json& summary, const fs::path& collector_dir) {
  try {
    fabcheck::write_prometheus(folder_, "metrics.prom", measurements_, findings_, summary);
  } catch (const std::runtime_error& error) {
    throw ResultsWriteError(error.what(), false);
  }
  if (!collector_dir.empty()) {
    fabcheck::write_prometheus(collector_dir / prometheus_file_name(summary), measurements_,
                               findings_, summary);
  }
}

std::vector<Measurement> read_measurements(const fs::path& run_dir) {
  const fs::path path = run_dir / "measurements.jsonl";
  std::ifstream in(path);
  if (!in) throw ConfigError(path.string(), 0, "cannot open measurements file");
  std::vector<Measurement> measurements;
  std::string line;
  long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path.string() + ":" + std::to_string(line_number);
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& error) {
      throw ConfigError(path.string(), line_number, std::string("invalid JSON: ") + error.what());
    }
    measurements.push_back(measurement_from_json(json, where));
  }
  return measurements;
}

}  // namespace fabcheck
