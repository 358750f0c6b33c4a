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
#include <stdexcept>
#include <system_error>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "results/hdf5_writer.hpp"
#include "results/json_text.hpp"
#include "results/junit_writer.hpp"
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

// Opens a file that must not exist yet (O_EXCL), so nothing earlier is written over.
int create_exclusively(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw write_error("create", path, errno);
  return fd;
}

// Writes all of `bytes` at the end of `fd`; on failure cuts the file back to where it was.
void write_whole(int fd, const std::string& bytes, const fs::path& path) {
  const off_t before = ::lseek(fd, 0, SEEK_END);
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      if (before >= 0 && ::ftruncate(fd, before) != 0) {
        // Nothing more to do: the reader skips a line that does not end in a newline.
      }
      throw write_error("write", path, error);
    }
    written += static_cast<std::size_t>(n);
  }
}

// Writes `bytes` to `path` atomically: a temporary file of its own (created exclusively, so
// nothing planted under its name is followed or written into), then renamed over it.
void replace_file(const fs::path& path, const std::string& bytes) {
  std::string name = path.string() + ".tmp.XXXXXX";
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  const fs::path temporary = name;
  if (fd < 0) throw write_error("create", temporary, errno);
  if (::fchmod(fd, 0644) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    throw write_error("chmod", temporary, error);
  }
  try {
    write_whole(fd, bytes, temporary);
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw write_error("write", temporary, error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw write_error("rename " + temporary.string() + " to", path, error);
  }
}

// Removes a last line that does not end in a newline (a record cut short by a killed writer).
void cut_partial_line(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
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
  ::close(fd);
}

constexpr const char* kReserveName = ".space-reserve";

// How much room to keep for the last summary: a quarter of what is free, at most 256 KiB, none
// when that is under 4 KiB (a nearly full filesystem).
std::uint64_t reserve_size(const fs::path& dir) {
  struct statvfs info {};
  if (::statvfs(dir.c_str(), &info) != 0) return 0;
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
  const std::uint64_t size = std::min<std::uint64_t>(256 * 1024, free_bytes / 4) & ~4095ull;
  return size < 4 * 1024 ? 0 : size;
}

// The last resort on a full filesystem, where not even a temporary file fits: rewrites `path` in
// place when `bytes` fit in the blocks it already has (so nothing new is needed). Not atomic, but
// a summary that says why the run stopped beats one that still says "in progress".
bool rewrite_in_place(const fs::path& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  bool done = false;
  if (::fstat(fd, &info) == 0 && bytes.size() <= static_cast<std::uint64_t>(info.st_blocks) * 512) {
    done = ::pwrite(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()) &&
           ::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0;
  }
  ::close(fd);
  return done;
}

}  // namespace

RunWriter::RunWriter(fs::path dir) : dir_(std::move(dir)) {
  // The run directory is made here, by this process, or not at all: a directory that exists
  // (even empty, even one this user could write) may belong to someone else, who could have
  // planted links in it, and an earlier run is never written over.
  std::error_code error;
  if (fs::exists(fs::symlink_status(dir_, error))) {
    throw ConfigError(dir_.string(), 0,
                      "run directory exists; a run writes only into a directory it creates "
                      "(choose a path that does not exist yet)");
  }
  const fs::path parent = dir_.has_parent_path() ? dir_.parent_path() : fs::path();
  if (!parent.empty()) fs::create_directories(parent, error);
  if (error) {
    const std::string what = describe_path(dir_);
    throw ConfigError(dir_.string(), 0,
                      "cannot create run directory: " + error.message() +
                          (what.rfind("missing", 0) == 0 ? "" : " (it is " + what + ")"));
  }
  if (::mkdir(dir_.c_str(), 0755) != 0) {
    const int mkdir_error = errno;
    throw ConfigError(
        dir_.string(), 0,
        mkdir_error == EEXIST
            ? std::string("run directory appeared while it was being created; a "
                          "run writes only into a directory it creates")
            : "cannot create run directory: " + std::string(std::strerror(mkdir_error)));
  }
  measurements_fd_ = create_exclusively(dir_ / "measurements.jsonl");
  try {
    findings_fd_ = create_exclusively(dir_ / "findings.jsonl");
  } catch (...) {
    ::close(measurements_fd_);
    throw;
  }
  if (const std::uint64_t size = reserve_size(dir_); size > 0) {
    const fs::path reserve = dir_ / kReserveName;
    const int fd = ::open(reserve.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
      if (rc == EOPNOTSUPP || rc == EINVAL) {
        try {
          write_whole(fd, std::string(size, '\0'), reserve);
          rc = 0;
        } catch (const ResultsWriteError&) {
          rc = ENOSPC;
        }
      }
      ::close(fd);
      reserved_ = rc == 0;
      if (!reserved_) ::unlink(reserve.c_str());
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
  ::unlink((dir_ / kReserveName).c_str());
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
    replace_file(dir_ / "summary.json", text);
  } catch (const ResultsWriteError& error) {
    if (!error.out_of_space()) throw;
    if (reserved_) {
      release_reserve();
      try {
        replace_file(dir_ / "summary.json", text);
        return;
      } catch (const ResultsWriteError&) {
      }
    }
    if (!rewrite_in_place(dir_ / "summary.json", text)) throw;
  }
}

bool RunWriter::write_hdf5() {
  const fs::path file = dir_ / "run.h5";
  std::string image;
  try {
    image = hdf5_image(measurements_, findings_);
  } catch (const std::exception& error) {
    throw ResultsWriteError("run.h5 not written: " + std::string(error.what()), false);
  }
  if (image.empty()) return false;
  replace_file(file, image);
  return true;
}

void mark_run_incomplete(const fs::path& run_dir, const std::string& reason, bool failed) {
  for (const char* name : {"measurements.jsonl", "findings.jsonl"})
    cut_partial_line(run_dir / name);
  nlohmann::json summary = nlohmann::json::object();
  {
    std::ifstream in(run_dir / "summary.json");
    if (in) summary = nlohmann::json::parse(in, nullptr, false);
    if (!summary.is_object()) summary = {{"schema_version", kSchemaVersion}, {"kind", "summary"}};
  }
  if (failed) {
    Finding finding;
    finding.severity = Severity::error;
    finding.message = reason;
    finding.remedy =
        "check the rank and host named (process stopped or killed, GPU or NIC stuck, host "
        "frozen), then rerun";
    const fs::path findings = run_dir / "findings.jsonl";
    const int fd = ::open(findings.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw write_error("open", findings, errno);
    try {
      write_whole(fd, to_jsonl_line(to_json(finding)), findings);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    auto& counts = summary["counts"];
    counts["error"] = counts.value("error", 0) + 1;
    auto& errored = summary["probes"]["errored"];
    if (!errored.is_array()) errored = nlohmann::json::array();
    errored.push_back({{"id", ""}, {"message", reason}});
  }
  const auto& there = summary["incomplete_reason"];
  if (!there.is_string() || there.get<std::string>() == kRunInProgress)
    summary["incomplete_reason"] = reason;
  summary["finished_utc"] = nullptr;
  summary["exit_code"] = 3;
  if (summary.value("verdict", "") != "fail") summary["verdict"] = "incomplete";
  ::unlink((run_dir / kReserveName).c_str());
  replace_file(run_dir / "summary.json", json_text(summary, 2) + "\n");
  // junit.xml from the findings on disk, so a pipeline reading it sees the run end incomplete.
  std::vector<Finding> findings;
  {
    std::ifstream in(run_dir / "findings.jsonl");
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
  replace_file(run_dir / "junit.xml", render_junit(findings, summary));
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
  const fs::path evidence = dir_ / "evidence";
  if (::mkdir(evidence.c_str(), 0755) != 0 && errno != EEXIST)
    throw write_error("create", evidence, errno);
  const fs::path folder = evidence / plain(host);
  if (::mkdir(folder.c_str(), 0755) != 0) throw write_error("create", folder, errno);
  for (const auto& [name, text] : files) {
    const fs::path path = folder / plain(name);
    const int fd = create_exclusively(path);
    try {
      write_whole(fd, text, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  }
}

void RunWriter::write_junit(const nlohmann::json& summary) {
  replace_file(dir_ / "junit.xml", render_junit(findings_, summary));
}

void RunWriter::write_prometheus(const nlohmann::json& summary, const fs::path& collector_dir) {
  fabcheck::write_prometheus(dir_ / "metrics.prom", measurements_, findings_, summary);
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
