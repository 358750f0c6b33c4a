// Measurement: one measured figure, the record every probe emits and every writer stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

// Version of the JSON records (measurements.jsonl, findings.jsonl, summary.json); see
// results/schema/.
inline constexpr int kSchemaVersion = 1;

// Statistics over the samples behind one figure (see bench/core/stats.hpp for how they are
// computed).
struct SampleStats {
  std::size_t count = 0;
  double min = 0;
  double median = 0;
  double max = 0;
  double p99 = 0;
  double mean = 0;
  double cv = 0;  // coefficient of variation: stddev / mean
};

enum class MeasurementStatus { ok, error, waived };

// One rank's share of a figure combined across ranks (rank -1): e.g. the wrong elements each rank
// received, so a finding names the host and rank, not only the run.
struct RankFigure {
  int rank = 0;
  std::string host;
  double value = 0;
  bool operator==(const RankFigure&) const = default;
};

struct Measurement {
  std::string probe;   // "coll.all_reduce"
  std::string metric;  // "busbw"
  double value = 0;
  std::string unit;  // "GB/s", "us", "count"
  std::string host;  // host that measured it; empty when combined across hosts
  int rank = -1;     // -1 when combined across ranks
  std::string
      subject;       // what was measured: "world", "gpu3", "mlx5_2/1", "0000:17:00.0", "/mnt/ckpt"
  std::string peer;  // the other end, where there is one
  std::optional<std::uint64_t> size_bytes;
  std::map<std::string, std::string> params;  // e.g. backend, type, placement, ranks
  std::optional<SampleStats> stats;
  std::vector<RankFigure> by_rank;  // per-rank figures behind a combined one (may be empty)
  MeasurementStatus status = MeasurementStatus::ok;
  std::string message;   // why, when status is error or waived
  std::string time_utc;  // ISO 8601, when it was taken
};

// A measurement of `subject` with what every record has; the rest (host, rank, params, stats,
// status...) is the caller's.
Measurement make_measurement(std::string probe, std::string metric, double value, std::string unit,
                             std::string subject);

// The value of params[key], or "" when absent.
std::string param_of(const Measurement& measurement, const std::string& key);

const char* to_string(MeasurementStatus status);
std::optional<MeasurementStatus> measurement_status_from_string(const std::string& text);

}  // namespace fabcheck
