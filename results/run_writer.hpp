// RunWriter: the run directory's files, each record appended and flushed as it is produced.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

class RunWriter {
 public:
  // Creates `dir` (parents too). Throws ConfigError if it exists and is not an empty directory,
  // so an earlier run is never written over.
  explicit RunWriter(std::filesystem::path dir);
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  // Append one line to measurements.jsonl / findings.jsonl and flush it to the kernel.
  void append(const Measurement& measurement);
  void append(const Finding& finding);

  // Writes summary.json (atomically: a temporary file renamed over it). Call at the end, and
  // also early with verdict "incomplete" so that a killed run still has one.
  void write_summary(const nlohmann::json& summary);

  // Writes run.h5 from everything appended so far, when built with HDF5; returns false otherwise.
  bool write_hdf5();

  // Writes metrics.prom (the node_exporter textfile of everything appended so far and `summary`)
  // atomically, and the same text as `collector_dir`/fabcheck_<plan>.prom when it is not empty.
  void write_prometheus(const nlohmann::json& summary,
                        const std::filesystem::path& collector_dir = {});

  const std::vector<Measurement>& measurements() const { return measurements_; }
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  std::filesystem::path dir_;
  std::FILE* measurements_file_ = nullptr;
  std::FILE* findings_file_ = nullptr;
  std::vector<Measurement> measurements_;
  std::vector<Finding> findings_;
};

// Reads a run directory's measurements.jsonl (for `fabcheck evaluate`); errors name file and line.
std::vector<Measurement> read_measurements(const std::filesystem::path& run_dir);

}  // namespace fabcheck
