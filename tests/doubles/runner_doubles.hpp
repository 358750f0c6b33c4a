// Test doubles for the runner: a reporter that records every event it hears as one line, a probe
// whose body the test gives, and a profile judging those probes' figures.
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/core/probe.hpp"
#include "bench/core/reporter.hpp"
#include "bench/core/runner.hpp"
#include "results/profile.hpp"

namespace fabcheck::testing {

inline const char* problem_kind_name(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::probe_failed:
      return "probe_failed";
    case ProblemKind::results_not_written:
      return "results_not_written";
    case ProblemKind::run_not_started:
      return "run_not_started";
  }
  return "?";
}

// One line per event, with what tells the events apart.
class RecordingReporter final : public Reporter {
 public:
  explicit RecordingReporter(std::vector<std::string>& log, bool print_at_last_words = false)
      : log_(log), print_at_last_words_(print_at_last_words) {}
  void problem(const RunProblem& problem) override {
    log_.push_back(fmt::format("problem {} {}", problem_kind_name(problem.kind), problem.text));
  }
  void run_started(const RunStart& run) override {
    log_.push_back(fmt::format("run_started {}", run.probes.size()));
  }
  void probe_started(const ProbeStart& p) override {
    log_.push_back(fmt::format("probe_started {} {}/{}", p.probe->id, p.index, p.count));
  }
  void note(const ProbeStart& p, const std::string& text) override {
    log_.push_back(fmt::format("note {} {}", p.probe->id, text));
  }
  void progress(const ProbeStart& p, const Measurement& m) override {
    log_.push_back(fmt::format("progress {} {}", p.probe->id, m.metric));
  }
  void step(const ProbeStart& p, const ProgressStep& step) override {
    log_.push_back(fmt::format("step {} {}/{} {}", p.probe->id, step.done, step.count, step.next));
  }
  void measurements(const ProbeInfo& probe, const std::vector<Measurement>& all) override {
    log_.push_back(fmt::format("measurements {} {}", probe.id, all.size()));
  }
  void finding(const Finding& f) override {
    log_.push_back(fmt::format("finding {} {}", to_string(f.severity), f.probe));
  }
  void probe_finished(const ProbeEnd& p) override {
    log_.push_back(fmt::format("probe_finished {} {}{}", p.probe->id, to_string(p.outcome),
                               p.reason.empty() ? "" : " (" + p.reason + ")"));
  }
  void results_complete(const std::vector<Measurement>& m, const std::vector<Finding>& f) override {
    log_.push_back(fmt::format("results_complete {} {}", m.size(), f.size()));
  }
  void summary(const nlohmann::json& summary, bool final) override {
    log_.push_back(fmt::format("summary {} {}", final ? "final" : "in_progress",
                               summary.value("verdict", "")));
  }
  void run_finished(const RunEnd& run) override {
    log_.push_back(fmt::format("run_finished {} {} {}{}", to_string(run.verdict), run.exit_code,
                               run.incomplete_reason, run.last_words ? " last_words" : ""));
    if (print_at_last_words_ && run.last_words) {
      std::string joined;
      for (const auto& line : log_) joined += line + ";";
      std::fprintf(stderr, "EVENTS: %sEND\n", joined.c_str());
      std::fflush(stderr);
    }
  }

 private:
  std::vector<std::string>& log_;
  bool print_at_last_words_;
};

// A probe whose body is given; counts its runs.
class ScriptedProbe final : public Probe {
 public:
  ScriptedProbe(std::string id, std::function<void(MeasurementSink&)> body,
                std::vector<Requirement> needs = {})
      : Probe({.id = std::move(id),
               .description = "test",
               .metrics = {{"value", {"count", Better::higher}}},
               .needs = std::move(needs)}),
        body_(std::move(body)) {}
  void run(RunContext&, MeasurementSink& sink) override {
    ++runs;
    body_(sink);
  }
  int runs = 0;

 private:
  std::function<void(MeasurementSink&)> body_;
};

inline std::function<void(MeasurementSink&)> emits(const std::string& probe, double value) {
  return [probe, value](MeasurementSink& sink) {
    Measurement m;
    m.probe = probe;
    m.metric = "value";
    m.unit = "count";
    m.value = value;
    sink.emit(m);
  };
}

// Every test.* probe's value passes at 4 or more.
inline Profile test_profile(const std::vector<std::string>& probes) {
  MetricCatalog catalog;
  std::string text = "[profile]\nname = \"test\"\n";
  for (const auto& probe : probes) {
    catalog[probe]["value"] = {"count", Better::higher};
    text += "[[expect]]\nprobe = \"" + probe +
            "\"\nmetric = \"value\"\nunit = \"count\"\npass = 4\nwarn = 3\nsource = \"test\"\n";
  }
  return parse_profile(text, "test.toml", catalog);
}

// A request running `probes` into `out_dir` against test_profile, its events recorded into
// `events` (printed at the last words when `print_at_last_words`).
inline RunRequest recorded_request(const std::vector<Probe*>& probes,
                                   const std::filesystem::path& out_dir,
                                   std::vector<std::string>& events,
                                   bool print_at_last_words = false) {
  RunRequest request;
  request.probes = probes;
  std::vector<std::string> ids;
  for (const Probe* probe : probes) ids.push_back(probe->id());
  request.profile = test_profile(ids);
  request.out_dir = out_dir;
  request.versions = nlohmann::json::object();
  request.reporters.push_back(std::make_unique<RecordingReporter>(events, print_at_last_words));
  return request;
}

}  // namespace fabcheck::testing
