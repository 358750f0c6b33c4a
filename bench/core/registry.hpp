// Registry: the probes this binary knows, added by explicit register_*_probes() calls, and what
// their declarations add up to: metrics, options, judges.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/core/counter_monitor.hpp"
#include "bench/core/probe.hpp"
#include "results/figure_ref.hpp"
#include "results/finding.hpp"
#include "results/metric_catalog.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// When the runner calls a judge: after each probe with that probe's measurements, or once after
// every probe ran with all of them (for rules across probes and peers: a GPU slower than the rest).
enum class JudgeScope { each_probe, whole_run };

// A family's rules beyond numeric thresholds (a link below its own maximum, a GPU slower than its
// peers). The runner calls `judge` on the root with measurements from every rank (status ok only:
// waived and failed records are judged by the evaluator), as `scope` says.
struct Judge {
  std::string name;
  NodeSettingCatalog settings;                   // the [node] keys it reads, with their meaning
  std::function<void(const Profile&)> validate;  // throws ConfigError on a bad [node] value
  std::function<std::vector<Finding>(const std::vector<Measurement>&, const Profile&)> judge;
  JudgeScope scope = JudgeScope::each_probe;
  // Whether it compares hosts with each other (node pairs). `fabcheck evaluate` calls the others
  // host by host, so a sweep of thousands of nodes never needs all its records at once.
  bool across_hosts = false;
  // Whether it compares records of one kind across every run of a fleet (the GEMM output hash of
  // like GPUs): in a run it judges the run's records; `fabcheck evaluate` calls it once with the
  // records it reads from every run.
  bool across_runs = false;
  // The measurements `judge` reads (results/figure_ref.hpp: "gpu.health/error_counter_delta",
  // "host.cpu/*", "gpu.*/temperature_c"): given only those, it finds exactly what it finds given
  // all of a run's (tests/unit/cli/judge_reads_test.cpp checks every registered judge), so a
  // caller may build no others. Empty: not declared, read as everything (kEveryFigure); every
  // registered judge declares its own.
  std::vector<FigureRef> reads = {};
};

// A judge's declaration that it may read any measurement.
inline const std::vector<FigureRef> kEveryFigure{{"*", ""}};

// Whether `judge` reads measurements of (probe, metric); true for every figure when its `reads`
// is empty (undeclared) or holds {"*", ""}.
bool reads_figure(const Judge& judge, std::string_view probe, std::string_view metric);
// Whether any of `judges` does.
bool reads_figure(const std::vector<Judge>& judges, std::string_view probe,
                  std::string_view metric);
// Whether `judge` may read every measurement (undeclared, or declared so).
bool reads_everything(const Judge& judge);

// Runs the judges of `scope` over the measurements whose status is ok (the evaluator judges waived
// and failed ones), in registration order.
std::vector<Finding> run_judges(const std::vector<Judge>& judges, JudgeScope scope,
                                const std::vector<Measurement>& measurements,
                                const Profile& profile);

// An option as the registry knows it: its spec, and the probes (and their families) that read it.
struct DeclaredOption {
  OptionSpec spec;
  std::vector<std::string> probes;
  std::vector<std::string> families;  // "storage", "coll": the part of a probe id before the dot
};

// "coll" for "coll.all_reduce".
std::string family_of(const std::string& probe_id);

class Registry {
 public:
  // Throws std::logic_error on a duplicate id, or an option key another probe declared otherwise.
  void add(std::unique_ptr<Probe> probe);
  Probe* find(const std::string& id) const;
  // In registration order.
  std::vector<Probe*> all() const;
  // Every probe's metrics, for checking profiles.
  MetricCatalog catalog() const;

  // Every option any probe reads, by key.
  const std::map<std::string, DeclaredOption>& options() const { return options_; }
  // Checks option values before anything runs: every key is declared by some probe, and every value
  // follows its rule. Throws ConfigError naming the key and the family that would own an unknown
  // one (with the closest known key), or naming key, value and rule. `origin` says where the values
  // came from ("--opt", "plan gate").
  void validate_options(const std::map<std::string, std::string>& values,
                        const std::string& origin) const;
  // The keys of `values` that none of `probes` reads (given for probes not selected).
  static std::vector<std::string> unread_options(const std::map<std::string, std::string>& values,
                                                 const std::vector<Probe*>& probes);

  void add_judge(Judge judge);
  // Counters read around every heavy probe (see counter_monitor.hpp), in registration order.
  void add_counter_monitor(CounterMonitor monitor);
  const std::vector<CounterMonitor>& counter_monitors() const { return monitors_; }
  const std::vector<Judge>& judges() const { return judges_; }
  // Every judge's [node] keys, for checking profiles.
  NodeSettingCatalog node_settings() const;
  // Loads a profile checked against this registry's metrics and [node] keys, and validated by
  // every judge (ConfigError naming file, line and value otherwise).
  Profile load_profile(const std::filesystem::path& path) const;
  // Resolves "coll.all_reduce,coll.*" (a trailing ".*" takes a family) into probes, in the order
  // given, without repeats. Throws ConfigError naming an unknown id and listing the known ones.
  std::vector<Probe*> select(const std::string& comma_separated_ids) const;
  // The probes that declare the built-in plan `plan` (ProbeInfo::plans), by their stage there,
  // then in registration order.
  std::vector<Probe*> plan_probes(const std::string& plan) const;
  // The ids of the probes `plan` requires (PlanPlace::required), in plan order.
  std::vector<std::string> required_probes(const std::string& plan) const;

 private:
  std::vector<std::unique_ptr<Probe>> probes_;
  std::vector<Judge> judges_;
  std::vector<CounterMonitor> monitors_;
  std::map<std::string, DeclaredOption> options_;
};

// Each probe's checks across options (ProbeInfo::check_options); throws ConfigError.
void check_probe_options(const std::vector<Probe*>& probes, const RunOptions& options);

// The most bytes any one of `probes` has on disk at a time under one --storage-path (they run one
// after another and each removes its files), from each one's declared footprint.
std::uint64_t planned_storage_bytes(const std::vector<Probe*>& probes, const RunOptions& options,
                                    int world_size);

}  // namespace fabcheck
