// The JSON-lines reporter: each event one line, flushed as it comes.
#include "bench/core/json_lines_reporter.hpp"

#include "bench/core/plan_text.hpp"
#include "results/json_text.hpp"
#include "results/record_json.hpp"

namespace fabcheck {
namespace {

class JsonLinesReporter final : public Reporter {
 public:
  JsonLinesReporter(std::FILE* out, std::FILE* err) : out_(out), err_(err) {}

  // Only as the whole output of --dry-run: a run's stdout is its events.
  void plan(const RunPlan& plan) override {
    if (!plan.alone) return;
    nlohmann::json line = plan_estimate_json(*plan.estimate, plan.fit);
    line["kind"] = "plan";
    line["plan"] = plan.name;
    write(line);
  }

  void problem(const RunProblem& problem) override {
    std::fputs(problem_line(problem).c_str(), err_);
    std::fflush(err_);
  }

  void run_started(const RunStart& run) override {
    nlohmann::json probes = nlohmann::json::array();
    for (const ProbeInfo* probe : run.probes) probes.push_back(probe->id);
    nlohmann::json event = line("run_started");
    event.update({{"plan", run.plan},
                  {"probes", probes},
                  {"hosts", run.hosts},
                  {"ranks", run.ranks},
                  {"run_dir", run.run_dir.string()},
                  {"profile", run.profile},
                  {"profile_reason", run.profile_reason},
                  {"fabcheck_version", run.version}});
    write(event);
  }

  void probe_started(const ProbeStart& probe) override {
    nlohmann::json event = line("probe_started");
    event.update({{"probe", probe.probe->id}, {"index", probe.index}, {"count", probe.count}});
    write(event);
  }

  void note(const ProbeStart& probe, const std::string& text) override {
    nlohmann::json event = line("note");
    event.update({{"probe", probe.probe->id}, {"text", text}});
    write(event);
  }

  // A figure the root measured while the probe runs (a collective's size as it completes); the
  // same figure comes again among the probe's measurement events once it is gathered.
  void progress(const ProbeStart& probe, const Measurement& figure) override {
    nlohmann::json event = line("progress");
    event.update({{"probe", probe.probe->id}, {"measurement", to_json(figure)}});
    write(event);
  }

  // The probe's count of its steps: `done` of `count` finished, `next` the one beginning ("" when
  // the last ended). No tick events: a consumer of the stream has its own clock.
  void step(const ProbeStart& probe, const ProgressStep& step) override {
    nlohmann::json event = line("step");
    event.update({{"probe", probe.probe->id},
                  {"done", step.done},
                  {"count", step.count},
                  {"unit", step.unit},
                  {"next", step.next}});
    write(event);
  }

  void measurements(const ProbeInfo&, const std::vector<Measurement>& every_rank) override {
    for (const Measurement& m : every_rank) {
      nlohmann::json event = line("measurement");
      event["measurement"] = to_json(m);
      write(event);
    }
  }

  void finding(const Finding& finding) override {
    nlohmann::json event = line("finding");
    event["finding"] = to_json(finding);
    write(event);
  }

  void probe_finished(const ProbeEnd& probe) override {
    nlohmann::json event = line("probe_finished");
    event.update({{"probe", probe.probe->id},
                  {"index", probe.index},
                  {"count", probe.count},
                  {"outcome", to_string(probe.outcome)},
                  {"reason", probe.reason},
                  {"seconds", probe.seconds}});
    write(event);
  }

  void evidence(const std::string& host,
                const std::vector<std::pair<std::string, std::string>>& files) override {
    nlohmann::json names = nlohmann::json::array();
    for (const auto& file : files) names.push_back(file.first);
    nlohmann::json event = line("evidence");
    event.update({{"host", host}, {"files", names}});
    write(event);
  }

  void run_finished(const RunEnd& run) override {
    nlohmann::json event = line("run_finished");
    event.update(
        {{"verdict", to_string(run.verdict)},
         {"exit_code", run.exit_code},
         {"incomplete_reason",
          run.incomplete_reason.empty() ? nlohmann::json() : nlohmann::json(run.incomplete_reason)},
         {"last_words", run.last_words}});
    if (run.summary) {
      event["counts"] = run.summary->value("counts", nlohmann::json::object());
      event["run_dir"] = run.summary->value("run_dir", "");
      event["timing"] = run.summary->value("timing", nlohmann::json::object());
    }
    write(event);
  }

 private:
  static nlohmann::json line(const char* event) {
    return {{"schema_version", kSchemaVersion}, {"kind", "event"}, {"event", event}};
  }
  void write(const nlohmann::json& event) {
    const std::string text = json_text(event) + "\n";
    std::fputs(text.c_str(), out_);
    std::fflush(out_);
  }

  std::FILE* out_;
  std::FILE* err_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_lines_reporter(std::FILE* out, std::FILE* err) {
  return std::make_unique<JsonLinesReporter>(out, err);
}

}  // namespace fabcheck
