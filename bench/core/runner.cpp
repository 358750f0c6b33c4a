// Runner: probe loop, gathering, evaluation, events to the reporters, verdict.
#include "bench/core/runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iterator>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <sstream>

#include "bench/core/interrupt.hpp"
#include "bench/core/progress_ticker.hpp"
#include "bench/core/rank_results.hpp"
#include "bench/core/rank_status.hpp"
#include "bench/core/record_wire.hpp"
#include "bench/core/run_dir_reporters.hpp"
#include "bench/core/run_summary.hpp"
#include "bench/sys/procfs.hpp"
#include "bench/sys/timer.hpp"
#include "results/evaluator.hpp"
#include "results/node_verdicts.hpp"
#include "results/record_json.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

namespace {

// An ERROR on each host for each probe of `required` with no PASS, WARN or FAIL among `findings`
// (and no ERROR of its own): the plan promised its figures, so a run without them cannot pass, and
// every node it ran on is held (answer), not only the run's exit code 3.
std::vector<Finding> unjudged_required_probes(const std::vector<std::string>& required,
                                              const std::string& plan,
                                              const std::vector<Finding>& findings,
                                              const std::vector<std::string>& hosts) {
  std::vector<Finding> out;
  for (const std::string& id : required) {
    bool judged = false;
    std::string waived;
    for (const Finding& finding : findings) {
      if (finding.probe != id) continue;
      if (finding.severity == Severity::waived) {
        if (waived.empty()) waived = finding.message;
      } else {
        judged = true;
      }
    }
    if (judged) continue;
    Finding finding;
    finding.severity = Severity::error;
    finding.probe = id;
    finding.subject = "plan " + plan;
    finding.message =
        "plan " + plan + " requires " + id + "'s figures and it judged none (" +
        (waived.empty() ? std::string("no expectation of the profile matched them") : waived) +
        "): not a pass";
    finding.remedy =
        "run it where it applies (one rank per GPU: mpirun/srun), with a profile "
        "that has expectations at the sizes it measured";
    std::set<std::string> each(hosts.begin(), hosts.end());
    if (each.empty()) each.insert("");
    for (const std::string& host : each) {
      finding.host = host;
      out.push_back(finding);
    }
  }
  return out;
}

constexpr const char* kInProgress = kRunInProgress;
constexpr double kTickInterval_s = 1.0;  // the reporters' clock while a probe runs
constexpr const char* kFailureRemedy =
    "check the ranks and hosts named (process stopped or killed, GPU or NIC stuck, host frozen, "
    "network partition), then rerun; raise --timeout only if the probe is just slow";

// The FAIL findings about each host, for gathering evidence there (a finding across several hosts
// goes to each of them); hosts in name order.
using EvidencePlan = std::map<std::string, std::vector<Finding>>;

EvidencePlan evidence_plan(const std::vector<Finding>& findings,
                           const std::vector<std::string>& hosts) {
  EvidencePlan by_host;
  for (const Finding& finding : findings) {
    if (finding.severity != Severity::fail) continue;
    for (const std::string& host : hosts_named(finding, hosts)) by_host[host].push_back(finding);
  }
  return by_host;
}

}  // namespace

struct Runner::State {
  RunRequest request;
  bool is_root = false;
  std::filesystem::path run_dir;  // as every rank knows it
  // The reporters and the record below; the signal thread uses them too, and gives up when it
  // cannot have them in time (the main thread is stuck in a write): the sentinel then writes
  // instead.
  std::timed_mutex mutex;
  std::unique_ptr<RunWriter> writer;  // the run directory, on the root
  // The root's: its files first, then the request's. Another rank's: the request's (problems).
  std::vector<std::unique_ptr<Reporter>> reporters;
  RunSummary summary;                     // the run as summary.json tells it (root)
  std::vector<Measurement> measurements;  // the run's, every rank's (root)
  ProbeStart in_flight;                   // the probe running now
  std::string current_probe;
  std::string stop_reason;  // results cannot be written: the run stops after this probe
  NodeFitness fitness;      // this rank's node, as node.preflight found it
  // Every rank passed finish's barrier with a verdict that is not incomplete (root only).
  std::atomic<bool> answered{false};
  std::unique_ptr<ScopedCleanup> last_words;  // last: unregistered before the rest goes
};

Runner::Runner(RunRequest request) : state_(std::make_unique<State>()) {
  state_->request = std::move(request);
}

Runner::~Runner() = default;

void Runner::write_last_words() {
  State& s = *state_;
  std::unique_lock lock(s.mutex, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::seconds(2)) || !s.writer) return;
  // Answered (finish): a signal alone leaves the summary as it is; a failure does not.
  if (s.answered && !interrupted_by_failure()) return;
  if (!rank_status().claim_last_words(RankStatus::by_rank)) return;
  const std::string reason = interruption_reason();
  RunRecord& run = s.summary.run;
  if (interrupted_by_failure()) {
    Finding finding;
    finding.severity = Severity::error;
    finding.probe = s.current_probe;
    finding.message = reason;
    finding.remedy = kFailureRemedy;
    run.findings.push_back(finding);
    report([&](Reporter& r) { r.finding(finding); });
    run.probes_errored.emplace_back(s.current_probe, reason);
  }
  const nlohmann::json summary = write_summary(reason);
  RunEnd end;
  end.verdict = verdict_of(run.findings, true);
  end.exit_code = 3;
  end.incomplete_reason = incomplete_reason_of(summary);
  end.findings = &run.findings;
  end.summary = &summary;
  end.last_words = true;
  report([&](Reporter& r) { r.run_finished(end); });
}

template <typename Event>
void Runner::report(Event&& event) {
  State& s = *state_;
  if (!s.is_root) return;
  for (auto& reporter : s.reporters) {
    try {
      event(*reporter);
    } catch (const ResultsWriteError& error) {
      if (!s.stop_reason.empty()) continue;
      s.stop_reason = error.what();
      report_problem(ProblemKind::results_not_written,
                     std::string(error.what()) + "; the run ends after this probe");
    }
  }
}

void Runner::report_problem(ProblemKind kind, std::string text) {
  const RunProblem problem{kind, std::move(text)};
  for (auto& reporter : state_->reporters) reporter->problem(problem);
}

nlohmann::json Runner::write_summary(const std::string& reason) {
  // Caller holds the mutex.
  State& s = *state_;
  if (!s.writer) return {};
  nlohmann::json summary = s.summary.json(reason);
  // A final summary (the end, a timeout, an interrupt): metrics.prom and junit.xml follow it.
  const bool final = reason != kInProgress;
  report([&](Reporter& r) { r.summary(summary, final); });
  return summary;
}

void Runner::record(const Finding& finding) {
  // Caller holds the mutex. A FAIL naming one node carries the operator's action first ("drain
  // node07: ...").
  State& s = *state_;
  Finding written = finding;
  written.remedy = remedy_with_operator_action(finding, s.summary.run.hosts);
  s.summary.run.findings.push_back(written);
  report([&](Reporter& r) { r.finding(written); });
}

// Every rank must agree: a probe that does not apply on one rank is waived on all. Returns why
// ("" when it runs), the same on every rank.
std::string Runner::waive_reason(World& world, Probe& probe) {
  State& s = *state_;
  Applicability mine = applicability_of(probe, world, s.request.options);
  if (mine.applies && probe.heavy() && !s.fitness.fit()) {
    std::string reasons;
    for (const auto& reason : s.fitness.unfit_reasons)
      reasons += (reasons.empty() ? "" : "; ") + reason;
    mine = Applicability::waived("node not fit to be measured (node.preflight): " + reasons);
  }
  const auto verdicts = world.gather_values(mine.applies ? std::string() : mine.reason);
  std::string waive_reason;
  if (world.is_root()) {
    std::map<std::string, std::vector<int>> ranks_by_reason;
    for (std::size_t r = 0; r < verdicts.size(); ++r) {
      if (!verdicts[r].empty()) ranks_by_reason[verdicts[r]].push_back(static_cast<int>(r));
    }
    for (const auto& [reason, ranks] : ranks_by_reason) {
      std::string where = static_cast<int>(ranks.size()) == world.size()
                              ? std::string()
                              : fmt::format(" (on {} of {} ranks, first {})", ranks.size(),
                                            world.size(), world.describe_rank(ranks.front()));
      waive_reason += (waive_reason.empty() ? "" : "; ") + reason + where;
    }
  }
  return world.broadcast_value(waive_reason);
}

void Runner::run_probe(World& world, Probe& probe) {
  State& s = *state_;
  const std::string id = probe.id();
  {
    std::lock_guard lock(s.mutex);
    s.current_probe = id;
    if (world.is_root()) {
      s.in_flight.probe = &probe.info();
      s.in_flight.index += 1;
      s.in_flight.count = static_cast<int>(s.request.probes.size());
      report([&](Reporter& r) { r.probe_started(s.in_flight); });
    }
  }
  const double began = now_seconds();
  ProbeEnd end;
  end.probe = &probe.info();
  end.index = s.in_flight.index;
  end.count = s.in_flight.count;
  const std::string waived = waive_reason(world, probe);
  if (!waived.empty()) {
    if (!world.is_root()) return;
    std::lock_guard lock(s.mutex);
    Finding finding;
    finding.severity = Severity::waived;
    finding.probe = id;
    finding.message = id + " waived: " + waived;
    s.summary.run.findings.push_back(finding);
    report([&](Reporter& r) { r.finding(finding); });
    s.summary.run.probes_waived.emplace_back(id, waived);
    end.outcome = ProbeOutcome::waived;
    end.reason = waived;
    end.seconds = now_seconds() - began;
    report([&](Reporter& r) { r.probe_finished(end); });
    write_summary(kInProgress);
    return;
  }

  // A margin over the probe's own limit, so a backend that bounds its operations itself (NCCL
  // aborts its communicators and names the GPUs) reports first.
  world.checkpoint("probe " + id, s.request.options.probe_timeout_s + kWatchdogMargin_s);
  CollectingSink::Forward forward;
  std::optional<ProgressTicker> ticker;
  if (world.is_root()) {
    forward.figure = [&s, this](const Measurement& figure) {
      std::lock_guard lock(s.mutex);
      report([&](Reporter& r) { r.progress(s.in_flight, figure); });
    };
    forward.note = [&s, this](const std::string& note) {
      std::lock_guard lock(s.mutex);
      report([&](Reporter& r) { r.note(s.in_flight, note); });
    };
    forward.step = [&s, this](const ProgressStep& step) {
      std::lock_guard lock(s.mutex);
      report([&](Reporter& r) { r.step(s.in_flight, step); });
    };
    // The clock ticks while the probe and the gather after it run; a tick never waits for an
    // event being handed out (nor for the signal thread's last words).
    ticker.emplace(kTickInterval_s, [&s, this] {
      std::unique_lock lock(s.mutex, std::try_to_lock);
      if (lock.owns_lock()) report([&](Reporter& r) { r.tick(s.in_flight); });
    });
  }
  CollectingSink sink(world, forward);
  RunContext context{world, s.request.options, s.run_dir, &s.fitness};
  // Error counters around a heavy probe, read once a host.
  const bool watch = probe.heavy() && world.local_rank() == 0 && !s.request.monitors.empty();
  const auto counters_before = watch ? read_counter_monitors(s.request.monitors, s.request.options)
                                     : std::vector<std::optional<CounterReadings>>();
  const double started_s = now_seconds();
  try {
    probe.run(context, sink);
  } catch (const std::exception& error) {
    Measurement failed;
    failed.probe = id;
    failed.metric = "error";
    failed.status = MeasurementStatus::error;
    failed.message = dynamic_cast<const std::bad_alloc*>(&error) != nullptr
                         ? "out of memory: the probe could not allocate what it needs (" +
                               std::string(error.what()) + "); lower --sizes or its options"
                         : error.what();
    sink.emit(failed);
    std::lock_guard lock(s.mutex);
    report_problem(ProblemKind::probe_failed,
                   world.describe_rank(world.rank()) + ": " + id + ": " + failed.message);
  }
  if (watch) {
    emit_counter_growth(s.request.monitors, counters_before, s.request.options, id,
                        now_seconds() - started_s, sink);
  }
  // A rank done with the probe waits here for the slowest one: a host-scoped probe (host.sdc's
  // minutes of pinned chains) runs on each host's first rank only, the others arrive at once. The
  // probe's own limit bounds that wait; 120 s more for the gather itself.
  world.checkpoint("gather results of " + id,
                   s.request.options.probe_timeout_s + kWatchdogMargin_s + 120);
  const auto gathered = world.gather_values(sink.results());
  ticker.reset();
  if (!world.is_root()) return;

  std::lock_guard lock(s.mutex);
  RunRecord& run = s.summary.run;
  run.probes_run.push_back(id);
  std::vector<Measurement> measurements;  // every rank's, in rank order
  for (const RankResults& rank : gathered) {
    // The other ranks' notes (the root's went out as they came).
    for (const auto& note : rank.notes) report([&](Reporter& r) { r.note(s.in_flight, note); });
    measurements.insert(measurements.end(), rank.measurements.begin(), rank.measurements.end());
  }
  s.measurements.insert(s.measurements.end(), measurements.begin(), measurements.end());
  report([&](Reporter& r) { r.measurements(probe.info(), measurements); });
  for (const auto& measurement : measurements) {
    if (measurement.status == MeasurementStatus::error && end.outcome != ProbeOutcome::errored) {
      run.probes_errored.emplace_back(id, measurement.message);
      end.outcome = ProbeOutcome::errored;
      end.reason = measurement.message;
    }
    for (const auto& finding : evaluate_measurement(measurement, s.request.profile))
      record(finding);
  }
  for (const auto& finding :
       run_judges(s.request.judges, JudgeScope::each_probe, measurements, s.request.profile)) {
    record(finding);
  }
  end.seconds = now_seconds() - began;
  report([&](Reporter& r) { r.probe_finished(end); });
  write_summary(kInProgress);
}

void Runner::gather_evidence(World& world) {
  State& s = *state_;
  // The root names the hosts to gather on, each with the FAIL findings about it; every rank learns
  // the list.
  EvidencePlan plan;
  if (world.is_root() && s.request.gather_evidence) {
    std::lock_guard lock(s.mutex);
    plan = evidence_plan(s.summary.run.findings, s.summary.run.hosts);
  }
  plan = world.broadcast_value(plan);
  if (plan.empty()) return;
  world.checkpoint("gather evidence", s.request.evidence_limit_s + kWatchdogMargin_s);
  std::vector<EvidenceFile> mine;
  if (const auto failures = plan.find(world.host());
      world.local_rank() == 0 && failures != plan.end()) {
    try {
      mine = s.request.gather_evidence(failures->second, s.run_dir);
    } catch (const std::exception& error) {
      mine = {EvidenceFile{"index.txt", std::string("not gathered: ") + error.what()}};
    }
  }
  world.checkpoint("gather evidence files", 120);
  const auto gathered = world.gather_values(mine);
  if (!world.is_root()) return;
  std::lock_guard lock(s.mutex);
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    if (gathered[r].empty()) continue;
    // Text files, UTF-8: a stray byte of a kernel log is replaced, not written.
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& file : gathered[r]) files.emplace_back(file.name, valid_utf8(file.text));
    const std::string& host = world.hosts()[r];
    report([&](Reporter& reporter) { reporter.evidence(host, files); });
    s.summary.run.evidence_hosts.push_back(host);
  }
}

// The root's run directory files as reporters, the run's record begun, run_started sent. False
// (on every rank) when the directory was not made or the start failed: said as a problem.
bool Runner::start(World& world, RunDirectory directory) {
  State& s = *state_;
  s.is_root = world.is_root();
  s.run_dir = directory.path;
  std::string failure = directory.failure;
  {
    std::lock_guard lock(s.mutex);
    s.writer = std::move(directory.writer);
    for (auto& reporter : s.request.reporters) s.reporters.push_back(std::move(reporter));
    s.request.reporters.clear();
  }
  if (directory.made()) {
    if (world.is_root()) {
      try {
        std::lock_guard lock(s.mutex);
        auto files = run_directory_reporters(*s.writer, s.request.prometheus_dir);
        s.reporters.insert(s.reporters.begin(), std::make_move_iterator(files.begin()),
                           std::make_move_iterator(files.end()));
        const FileIdentity made = s.writer->identity();
        rank_status().run_dir_device.store(made.device);
        rank_status().run_dir_inode.store(made.inode);
        rank_status().run_dir.store(std::filesystem::absolute(s.run_dir).string());
        RunRecord& run = s.summary.run;
        run.versions = s.request.versions;
        run.environment = s.request.environment;
        run.command_line = s.request.command_line;
        run.plan_name = s.request.plan_name;
        run.profile_name = s.request.profile.name;
        run.profile_path = s.request.profile.path;
        run.profile_reason = s.request.profile_reason;
        run.estimate = s.request.estimate;
        run.run_dir = s.writer->dir().string();
        run.started_utc = utc_timestamp();
        run.hosts = world.distinct_hosts();
        for (const auto& host : run.hosts) run.host_ranks[host] = nlohmann::json::array();
        for (int r = 0; r < world.size(); ++r)
          run.host_ranks[world.hosts()[static_cast<std::size_t>(r)]].push_back(r);
        run.ranks = world.size();
        RunStart start;
        start.plan = s.request.plan_name;
        for (const Probe* probe : s.request.probes) {
          start.probes.push_back(&probe->info());
          run.repairs[probe->id()] = probe->info().repairs;
        }
        start.hosts = run.hosts;
        start.ranks = run.ranks;
        start.run_dir = s.run_dir;
        start.profile = s.request.profile.name;
        start.profile_reason = s.request.profile_reason;
        start.version = s.request.versions.value("fabcheck", "");
        start.estimated_s = s.request.estimated_s;
        report([&](Reporter& r) { r.run_started(start); });
        write_summary(kInProgress);
      } catch (const std::exception& error) {
        failure = error.what();
      }
    }
    failure = world.broadcast_value(failure);
  }
  if (failure.empty()) return true;
  if (world.is_root()) {
    std::lock_guard lock(s.mutex);
    report_problem(ProblemKind::run_not_started, failure);
  }
  return false;
}

// The whole-run judges, evidence on a FAIL, the final summary and run_finished; returns the exit
// code, the same on every rank.
int Runner::finish(World& world) {
  State& s = *state_;
  RunRecord& run = s.summary.run;
  int exit_code = 0;
  if (world.is_root()) {
    std::lock_guard lock(s.mutex);
    const Stopwatch judging;
    // The runner holds every measurement of the run: the whole-run judges read them there.
    for (const auto& finding :
         run_judges(s.request.judges, JudgeScope::whole_run, s.measurements, s.request.profile)) {
      record(finding);
    }
    // What the plan promised to judge (before the verification PASSes, which judge no figure).
    for (const auto& finding : unjudged_required_probes(
             s.request.required_probes, s.request.plan_name, run.findings, world.hosts())) {
      record(finding);
    }
    // Data verified element by element is judged too: one PASS per probe that found none wrong.
    for (const auto& finding : verification_passes(s.measurements)) record(finding);
    run.timing.judgement_s = judging.elapsed_s();
  }
  const Stopwatch evidence;
  gather_evidence(world);
  if (world.is_root()) {
    std::lock_guard lock(s.mutex);
    run.timing.evidence_s = evidence.elapsed_s();
    const Stopwatch writing;
    report([&](Reporter& r) { r.results_complete(s.measurements, run.findings); });
    run.timing.writing_s = writing.elapsed_s();
    s.summary.judge_completion(s.stop_reason);
    nlohmann::json summary = write_summary("");
    // The summary itself hit a write error: try once more, saying so.
    if (s.summary.take_late_write_error(s.stop_reason)) summary = write_summary("");
    const bool ended_early = s.summary.ended_early();
    exit_code = ended_early ? 3 : exit_code_of(verdict_of(run.findings));
    RunEnd end;
    end.verdict = verdict_of(run.findings, ended_early);
    end.exit_code = exit_code;
    // The summary's: a probe that errored makes the run incomplete too.
    end.incomplete_reason = incomplete_reason_of(summary);
    end.findings = &run.findings;
    end.summary = &summary;
    report([&](Reporter& r) { r.run_finished(end); });
  }
  exit_code = world.broadcast_value(exit_code);
  // Every rank has its exit code once the barrier returns: the summary holds the run's answer, and
  // a plain signal after this (mpirun ending the job when a rank that finished first exits with
  // the verdict's code) must not rewrite it as incomplete. A rank stopped or dead after it still
  // does (write_last_words): the run did not end.
  world.barrier();
  if (world.is_root() && exit_code != 3) s.answered = true;
  return exit_code;
}

int Runner::execute(World& world) {
  return execute(world, make_run_directory(world, state_->request.out_dir));
}

int Runner::execute(World& world, RunDirectory directory) {
  State& s = *state_;
  if (!start(world, std::move(directory))) return 2;
  s.last_words = std::make_unique<ScopedCleanup>([this] { write_last_words(); });

  s.summary.run.timing.first_probe_at = now_seconds();
  s.summary.run.timing.startup_s = process_age_s();
  for (Probe* probe : s.request.probes) {
    const double began = now_seconds();
    run_probe(world, *probe);
    bool stop = false;
    if (world.is_root()) {
      std::lock_guard lock(s.mutex);
      s.summary.run.timing.probe_seconds.emplace_back(probe->id(), now_seconds() - began);
      stop = !s.stop_reason.empty();
    }
    if (world.broadcast_value(stop)) break;
  }
  return finish(world);
}

}  // namespace fabcheck
