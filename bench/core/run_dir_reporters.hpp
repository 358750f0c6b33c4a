// The run directory's files as reporters, each a few lines over RunWriter: measurements.jsonl and
// findings.jsonl as records come, evidence/<host>/ on a FAIL, run.h5 once the results are complete,
// summary.json with every summary, metrics.prom (and the collector's copy) and junit.xml with every
// final summary. A new file format is one more small class and one line in
// run_directory_reporters().
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "bench/core/reporter.hpp"
#include "results/run_writer.hpp"

namespace fabcheck {

// In the order they write: records and evidence, run.h5, summary.json, metrics.prom, junit.xml.
// `prometheus_dir`: node_exporter's textfile directory (--prometheus-dir), or empty.
std::vector<std::unique_ptr<Reporter>> run_directory_reporters(
    RunWriter& writer, const std::filesystem::path& prometheus_dir);

}  // namespace fabcheck
