// The console reporter: tables and findings on stdout, progress on stderr.
#include "bench/core/console_reporter.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "bench/core/measurement_table.hpp"
#include "bench/core/plan_text.hpp"
#include "results/finding_text.hpp"
#include "results/units.hpp"

namespace fabcheck {

ProgressStyle progress_style_for(std::FILE* err) {
  return ::isatty(::fileno(err)) ? ProgressStyle::in_place : ProgressStyle::lines;
}

std::optional<double> estimate_remaining_s(const std::vector<double>& estimated_s,
                                           const std::vector<double>& finished_s, int count,
                                           int in_flight, double in_flight_elapsed_s) {
  double mean = 0;
  for (const double seconds : finished_s) mean += seconds;
  const bool have_mean = !finished_s.empty();
  if (have_mean) mean /= static_cast<double>(finished_s.size());
  double left = 0;
  for (int probe = std::max(0, in_flight); probe < count; ++probe) {
    const auto at = static_cast<std::size_t>(probe);
    double expected = 0;
    if (at < estimated_s.size() && estimated_s[at] > 0) {
      expected = estimated_s[at];
    } else if (have_mean) {
      expected = mean;
    } else {
      return std::nullopt;
    }
    left += probe == in_flight ? std::max(0.0, expected - in_flight_elapsed_s) : expected;
  }
  return left;
}

std::string format_duration(double seconds) {
  const auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (total >= 3600)
    return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

namespace {

double monotonic_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class ConsoleReporter final : public Reporter {
 public:
  explicit ConsoleReporter(ConsoleOptions options) : o_(std::move(options)) {
    if (!o_.clock) o_.clock = monotonic_s;
    if (o_.quiet) o_.progress = ProgressStyle::none;
  }

  // Before the run, unless --quiet asked for the verdict alone; with --dry-run whatever.
  void plan(const RunPlan& plan) override {
    if (o_.quiet && !plan.alone) return;
    out(format_plan(plan.name, *plan.job, *plan.estimate, plan.fit) + "\n");
  }

  void problem(const RunProblem& problem) override {
    clear_progress();
    std::fputs(problem_line(problem).c_str(), o_.err);
    std::fflush(o_.err);
  }

  void run_started(const RunStart& run) override {
    started_ = o_.clock();
    count_ = static_cast<int>(run.probes.size());
    estimated_s_ = run.estimated_s;
    run_dir_ = run.run_dir.string();
    hosts_ = run.hosts;
    if (o_.quiet) return;
    out(fmt::format("# fabcheck {}: {} rank(s) on {} host(s), results in {}\n# profile {} ({})\n\n",
                    run.version, run.ranks, run.hosts.size(), run_dir_, run.profile,
                    run.profile_reason));
  }

  void probe_started(const ProbeStart& probe) override {
    in_probe_ = true;
    stepped_ = false;
    probe_findings_.clear();
    probe_started_ = o_.clock();
    current_ = probe;
    live_ = probe.probe->live_table && !o_.quiet ? probe.probe->live_table() : nullptr;
    pending_.clear();
    show_progress(probe.probe->id + " started", /*always=*/true);
    doing_ = probe.probe->id + " running";  // what a tick says until the probe says more
  }

  void note(const ProbeStart&, const std::string& text) override {
    if (o_.quiet || text.empty()) return;
    out(text.back() == '\n' ? text : text + "\n");
  }

  void progress(const ProbeStart& probe, const Measurement& figure) override {
    if (live_) pending_.push_back(figure);
    // A probe that counts its steps says more than the size of its latest figure.
    if (!figure.size_bytes || stepped_) return;
    doing_ = probe.probe->id + " " + format_bytes(*figure.size_bytes);
    show_progress(doing_, /*always=*/false);
  }

  void step(const ProbeStart& probe, const ProgressStep& step) override {
    stepped_ = true;
    if (live_) {
      out(live_->rows(pending_));
      pending_.clear();
    }
    doing_ = step.next.empty() ? fmt::format("{} {} of {} {}s done", probe.probe->id, step.done,
                                             step.count, step.unit)
                               : fmt::format("{} {} {} of {} ({})", probe.probe->id, step.unit,
                                             step.done + 1, step.count, step.next);
    show_progress(doing_, /*always=*/false);
  }

  void tick(const ProbeStart&) override {
    if (in_probe_) show_progress(doing_, /*always=*/false);
  }

  void measurements(const ProbeInfo& probe, const std::vector<Measurement>& every_rank) override {
    if (o_.quiet) return;
    if (live_) {
      out(live_->rows(pending_) + live_->closing(every_rank));
      pending_.clear();
      live_.reset();
      return;
    }
    out(probe.console_table ? probe.console_table(every_rank)
                            : measurement_table(probe.id, every_rank));
  }

  void finding(const Finding& finding) override {
    // A waiver is said once, at the end, merged with the same waiver of the other nodes and ranks.
    if (o_.quiet || finding.severity == Severity::pass || finding.severity == Severity::waived)
      return;
    // A probe's findings follow its table; the whole-run judges' come as they are made.
    if (in_probe_) {
      probe_findings_.push_back(finding);
    } else {
      out(severity_line(finding));
    }
  }

  void probe_finished(const ProbeEnd& probe) override {
    in_probe_ = false;
    finished_s_.push_back(probe.seconds);
    show_progress(
        fmt::format("{} {} in {:.1f} s", probe.probe->id, to_string(probe.outcome), probe.seconds),
        /*always=*/true, /*finished=*/true);
    if (o_.quiet) return;
    if (probe.outcome == ProbeOutcome::waived) {
      out(fmt::format("# {}: WAIVED ({})\n\n", probe.probe->id, probe.reason));
      return;
    }
    std::string text;
    for (const auto& finding : probe_findings_) text += severity_line(finding);
    out(text + "\n");
  }

  void evidence(const std::string&,
                const std::vector<std::pair<std::string, std::string>>&) override {
    ++evidence_hosts_;
  }

  void run_finished(const RunEnd& run) override {
    in_probe_ = false;  // no tick redraws the progress after the end
    clear_progress();
    if (run.last_words) return;  // the signal thread: stdout may be gone; the summary says it
    const bool incomplete = !run.incomplete_reason.empty();
    const std::string verdict = run_verdict_line(*run.findings, hosts_, incomplete);
    if (o_.quiet) {
      out(verdict + "\n");
      return;
    }
    std::string text;
    if (evidence_hosts_ > 0) {
      text += fmt::format("evidence of the failures: {}/evidence/ ({} host(s))\n", run_dir_,
                          evidence_hosts_);
    }
    text += findings_by_severity(*run.findings);
    text += verdict + "\nresults: " + run_dir_ + "\n";
    if (incomplete) text += "incomplete: " + run.incomplete_reason + "\n";
    if (run.summary && run.summary->contains("timing")) {
      const auto& t = (*run.summary)["timing"];
      text += fmt::format(
          "time: {:.1f} s (start-up {:.1f}, probes {:.1f}, judgement {:.2f}, evidence {:.1f}, "
          "writing {:.2f})\n",
          t.value("wall_s", 0.0), t.value("startup_s", 0.0), t.value("probes_s", 0.0),
          t.value("judgement_s", 0.0), t.value("evidence_s", 0.0), t.value("writing_s", 0.0));
    }
    out(text);
  }

 private:
  static std::string severity_line(const Finding& finding) {
    return finding_line(finding, FindingNaming::message_only);
  }

  void out(const std::string& text) {
    if (text.empty()) return;
    clear_progress();
    std::fputs(text.c_str(), o_.out);
    std::fflush(o_.out);
  }

  void clear_progress() {
    if (!drawn_) return;
    std::fputs("\r\033[K", o_.err);
    std::fflush(o_.err);
    drawn_ = false;
  }

  void show_progress(const std::string& what, bool always, bool finished = false) {
    if (o_.progress == ProgressStyle::none) return;
    const double now = o_.clock();
    const double interval =
        o_.progress == ProgressStyle::lines ? o_.line_interval_s : o_.redraw_interval_s;
    if (!always && now - last_drawn_ < interval) return;
    last_drawn_ = now;
    const int index = current_.index;
    // After a probe finished, the one in flight is the next.
    const auto left =
        estimate_remaining_s(estimated_s_, finished_s_, count_, finished ? index : index - 1,
                             finished ? 0.0 : now - probe_started_);
    const std::string line = fmt::format(
        "[{}/{}] {}, {} elapsed, {}", index, count_, what, format_duration(now - started_),
        left ? "~" + format_duration(*left) + " left" : "time left unknown");
    if (o_.progress == ProgressStyle::lines) {
      std::fprintf(o_.out, "fabcheck %s\n", line.c_str());
      std::fflush(o_.out);
      return;
    }
    std::fprintf(o_.err, "\r\033[K%s", line.c_str());
    drawn_ = true;
    std::fflush(o_.err);
  }

  ConsoleOptions o_;
  double started_ = 0;
  double probe_started_ = 0;
  double last_drawn_ = -1e9;
  int count_ = 0;
  std::vector<double> estimated_s_;  // hook: the plan's per-probe estimates (issue 14), if any
  std::vector<double> finished_s_;
  ProbeStart current_;
  std::string doing_;     // the probe in flight and its step, as the progress line says it
  bool stepped_ = false;  // the probe in flight counts its steps
  std::unique_ptr<LiveTable> live_;   // its live table, if it has one
  std::vector<Measurement> pending_;  // the root's figures since its last step
  bool in_probe_ = false;
  bool drawn_ = false;
  std::vector<Finding> probe_findings_;
  int evidence_hosts_ = 0;
  std::string run_dir_;
  std::vector<std::string> hosts_;  // the run's, for the nodes to drain
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(ConsoleOptions options) {
  return std::make_unique<ConsoleReporter>(std::move(options));
}

}  // namespace fabcheck
