// Prometheus: a run's measurements, findings and verdict as a node_exporter textfile
// (metrics.prom).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

class DirHandle;

// The text exposition format (version 0.0.4) as node_exporter's textfile collector reads it: one
// HELP and one TYPE line per family before its samples, every family a gauge, no timestamps.
// Measurements become one family per unit in base units (GB/s ->
// fabcheck_bandwidth_bytes_per_second, us -> fabcheck_duration_seconds, ...) labelled plan, probe,
// metric, size, subject, peer, placement, host, rank; the verdict, exit code, finding counts, probe
// states and the run's start and end times are gauges of their own. Label values are UTF-8 (invalid
// bytes become U+FFFD) with backslash, double quote and newline escaped. Every series also carries
// `plan` (from the summary), so the files of a gate and of a sweep can sit side by side in one
// collector directory. Waived and errored measurements have no sample: fabcheck_probe_status says
// why. The families, labels and units: results/schema/README.md ("metrics.prom").
std::string render_prometheus(const std::vector<Measurement>& measurements,
                              const std::vector<Finding>& findings, const nlohmann::json& summary);

// The name --prometheus-dir gets: "fabcheck_<plan>.prom" ("fabcheck_probes.prom" for --probes), so
// each run replaces the previous run of its plan and stale runs never pile up in the collector.
std::string prometheus_file_name(const nlohmann::json& summary);

// Writes render_prometheus() to `file` atomically: a hidden temporary file in the same directory
// (named so that node_exporter, which reads only *.prom, never reads it), flushed to disk, mode
// 0644, renamed over `file`. Throws std::runtime_error naming the path; the old file then stays.
// The folder must be safe to write results into (DirHandle::open_output_folder: ConfigError).
void write_prometheus(const std::filesystem::path& file,
                      const std::vector<Measurement>& measurements,
                      const std::vector<Finding>& findings, const nlohmann::json& summary);
// The same as `name` in a folder already held (DirHandle::publish_file).
void write_prometheus(const DirHandle& dir, const std::string& name,
                      const std::vector<Measurement>& measurements,
                      const std::vector<Finding>& findings, const nlohmann::json& summary);

}  // namespace fabcheck
