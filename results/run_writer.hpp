// RunWriter: the run directory's files, each record appended and flushed as it is produced. A
// record is written whole or not at all (a failed write is cut back), and a small reserve file
// keeps room for the last summary when the filesystem fills up.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sys/dir_handle.hpp"

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// A results file could not be written (the run goes on without it and ends incomplete).
class ResultsWriteError : public std::runtime_error {
 public:
  ResultsWriteError(const std::string& message, bool out_of_space)
      : std::runtime_error(message), out_of_space_(out_of_space) {}
  // ENOSPC or EDQUOT: the filesystem or the quota is full.
  bool out_of_space() const { return out_of_space_; }

 private:
  bool out_of_space_;
};

// The incomplete_reason of the summaries written while the run goes on.
inline constexpr const char* kRunInProgress = "run in progress (or killed before it finished)";

class RunWriter {
 public:
  // Creates `dir` (parents too; `dir` itself with mkdirat in its parent, opened by descriptor, so
  // it is this process's own and every file is created in it by descriptor: DirHandle). Throws
  // ConfigError if it exists at all (an empty directory or a link too): an earlier run is never
  // written over, and a directory someone else made is never written into; and when the parent is
  // owned by another user or writable by others without the sticky bit (exit 2). With
  // `numbered_if_taken` (the default name), a name taken is followed by `dir`-2, `dir`-3, ...
  explicit RunWriter(std::filesystem::path dir, bool numbered_if_taken = false);
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Which directory it is (for another process that finds it by name: mark_run_incomplete).
  FileIdentity identity() const { return folder_.identity(); }

  // Append one line to measurements.jsonl / findings.jsonl with one write(2). Throws
  // ResultsWriteError when the line cannot be written whole (the file is cut back to the record
  // before); the record is still kept in memory for the judges and the summary.
  void append(const Measurement& measurement);
  void append(const Finding& finding);

  // Writes summary.json (atomically: a temporary file renamed over it). Call at the end, and
  // also early with verdict "incomplete" so that a killed run still has one. Out of space, it
  // gives up the reserve file and tries once more. Throws ResultsWriteError.
  void write_summary(const nlohmann::json& summary);

  // Writes run.h5 from everything appended so far, when built with HDF5; returns false otherwise.
  // On failure removes what it wrote and throws ResultsWriteError.
  bool write_hdf5();

  // Writes metrics.prom (the node_exporter textfile of everything appended so far and `summary`)
  // atomically, and the same text as `collector_dir`/fabcheck_<plan>.prom when it is not empty.
  void write_prometheus(const nlohmann::json& summary,
                        const std::filesystem::path& collector_dir = {});
  // Writes each file as evidence/<host>/<name> (folders and files created exclusively; names
  // reduced to [A-Za-z0-9._-]). Throws ResultsWriteError.
  void write_evidence(const std::string& host,
                      const std::vector<std::pair<std::string, std::string>>& files);
  // Writes junit.xml (render_junit of every finding so far and `summary`) atomically. Throws
  // ResultsWriteError.
  void write_junit(const nlohmann::json& summary);
  // Gives up the reserve file (at the end of a run, or when the filesystem is full).
  void release_reserve();

  const std::vector<Measurement>& measurements() const { return measurements_; }
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  std::filesystem::path dir_;
  DirHandle folder_;                   // the run directory, as made
  std::optional<DirHandle> evidence_;  // evidence/, once made
  int measurements_fd_ = -1;
  int findings_fd_ = -1;
  bool reserved_ = false;
  std::vector<Measurement> measurements_;
  std::vector<Finding> findings_;
};

// For a process other than the writer (rank 0's sentinel, when rank 0 is stopped or dead): marks
// the run in `run_dir` incomplete with `reason` (a reason already there stays) and, when `failed`,
// appends an ERROR finding saying it. Leaves no half line: a record cut short is removed first.
// Writes nothing unless `run_dir` is still the directory made (`made`, RunWriter::identity()):
// one renamed aside and replaced by another folder or a link is refused (std::runtime_error).
void mark_run_incomplete(const std::filesystem::path& run_dir, const FileIdentity& made,
                         const std::string& reason, bool failed);

// Reads a run directory's measurements.jsonl (for `fabcheck evaluate`); errors name file and line.
std::vector<Measurement> read_measurements(const std::filesystem::path& run_dir);

}  // namespace fabcheck
