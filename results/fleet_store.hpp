// FleetStore: many runs' measurements in compact rows (interned strings, one row ~72 bytes), so
// a sweep of thousands of nodes and millions of figures fits in memory and is judged in seconds;
// any row turns back into a Measurement on demand.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// The parameters that make two figures comparable (backend, type, placement, block size, ...): a
// figure is compared only with figures of the same probe, metric, size and these.
bool is_condition_parameter(std::string_view key);

// What kind of thing a subject is: digit runs folded ("gpu3" -> "gpu#", "mlx5_2/1" ->
// "mlx#_#/#"), PCI addresses all "pci"; subjects of one kind on one node are siblings.
std::string subject_class(std::string_view subject);

// A profile [[expect]] subject pattern (fnmatch) for a kind: "gpu#" -> "gpu*", "pci" -> "*:*:*.*".
std::string subject_pattern(std::string_view subject_class);

// Distinct strings by id; id 0 is "".
class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  std::uint32_t intern(std::string_view text);
  // The id of `text` when interned, else nullopt-like kMissing.
  static constexpr std::uint32_t kMissing = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t find(std::string_view text) const;
  const std::string& text(std::uint32_t id) const { return *strings_[id]; }
  std::size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> storage_;  // stable addresses
  std::vector<const std::string*> strings_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
};

inline constexpr std::uint64_t kNoSize = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint32_t kNoStats = std::numeric_limits<std::uint32_t>::max();

struct FigureRow {
  std::uint32_t run = 0;  // index into FleetStore::runs
  std::uint32_t probe = 0, metric = 0, unit = 0, host = 0, subject = 0, peer = 0;
  std::uint32_t params = 0;  // a parameter set (FleetStore::params_of)
  std::uint32_t message = 0, time = 0;
  std::uint32_t stats = kNoStats;  // index into FleetStore::stats
  std::int32_t rank = -1;
  MeasurementStatus status = MeasurementStatus::ok;
  std::uint64_t size = kNoSize;
  double value = 0;
  bool has_size() const { return size != kNoSize; }
};

// What a run directory said about itself (summary.json) and what it knew that its measurements
// do not carry (timeouts and errors recorded as findings).
struct RunInfo {
  std::string dir;
  std::vector<std::string> hosts;  // from the summary, else from the measurements
  bool summary_found = false;
  std::string verdict;            // the run's own, "" without a summary
  std::string incomplete_reason;  // why the run is incomplete ("" when it finished)
  std::string profile_name;
  std::string profile_path;
  std::string started_utc;
  std::vector<Finding> carried;  // the run's ERROR findings (they rest on no measurement)
  std::size_t measurements = 0;
  bool truncated = false;  // measurements.jsonl ended in an unfinished line
};

class FleetStore {
 public:
  StringPool strings;
  std::vector<FigureRow> rows;
  std::vector<SampleStats> stats;
  std::vector<RunInfo> runs;

  // A parameter set: sorted (key, value) string-id pairs, interned.
  std::uint32_t intern_params(std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs);
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& params_of(std::uint32_t id) const {
    return param_sets_[id];
  }
  std::size_t param_set_count() const { return param_sets_.size(); }
  // A parameter set's comparability conditions: "backend=nccl; placement=out" (sorted by key;
  // "memory=cuda:<bus id>" reads "memory=cuda").
  std::string conditions_text(std::uint32_t params) const;
  // params[key] of a row, "" when absent.
  std::string_view param(const FigureRow& row, std::string_view key) const;

  std::uint32_t add_run(RunInfo run);
  void add(const Measurement& measurement, std::uint32_t run);
  Measurement materialize(const FigureRow& row) const;

  // Appends `other` (its runs, rows and strings), re-numbering its ids into this store's.
  void absorb(FleetStore&& other);

 private:
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> param_sets_{{}};
  StringPool param_keys_;  // each set's ids as bytes, for interning sets
};

}  // namespace fabcheck
