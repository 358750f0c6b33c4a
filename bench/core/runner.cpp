// Runner: probe loop, gathering, evaluation, events to the reporters, verdict.
#include "bench/core/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <new>
#include <sstream>

#include "bench/core/interrupt.hpp"
#include "bench/core/rank_status.hpp"
#include "bench/core/run_dir_reporters.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/procfs.hpp"
#include "bench/sys/timer.hpp"
#include "results/evaluator.hpp"
#include "results/node_verdicts.hpp"
#include "results/record_json.hpp"
#include "results/units.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

namespace {

// Stamps this rank's host, rank and the time on its own measurements and keeps them for gathering.
// On the root, each figure and note goes to the reporters as it comes (progress); another rank's
// notes travel with its measurements.
class CollectingSink final : public MeasurementSink {
 public:
  using Forward = std::function<void(const Measurement*, const std::string*)>;
  CollectingSink(const World& world, Forward forward)
      : world_(world), forward_(std::move(forward)) {}
  void emit(Measurement measurement) override {
    if (measurement.host.empty()) {
      measurement.host = world_.host();
      measurement.rank = world_.rank();
    }
    if (measurement.time_utc.empty()) measurement.time_utc = utc_timestamp();
    if (forward_) forward_(&measurement, nullptr);
    collected_.push_back(std::move(measurement));
  }
  void note(const std::string& text) override {
    if (forward_) {
      forward_(nullptr, &text);
    } else {
      notes_.push_back(text);
    }
  }
  // This rank's measurements and notes, one JSON object a line, for the gather.
  std::string encoded() const {
    std::string text;
    for (const auto& note : notes_) text += nlohmann::json{{"note", note}}.dump() + "\n";
    for (const auto& m : collected_) text += to_json(m).dump() + "\n";
    return text;
  }

 private:
  const World& world_;
  Forward forward_;
  std::vector<Measurement> collected_;
  std::vector<std::string> notes_;
};

void decode(const std::string& text, int rank, std::vector<Measurement>& measurements,
            std::vector<std::string>& notes) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto json = nlohmann::json::parse(line);
    if (json.contains("note")) {
      notes.push_back(json["note"].get<std::string>());
      continue;
    }
    measurements.push_back(measurement_from_json(json, "rank " + std::to_string(rank)));
  }
}

constexpr double kWatchdogMargin_s = 15;
constexpr const char* kInProgress = kRunInProgress;
constexpr const char* kFailureRemedy =
    "check the ranks and hosts named (process stopped or killed, GPU or NIC stuck, host frozen, "
    "network partition), then rerun; raise --timeout only if the probe is just slow";

// summary.json's incomplete_reason, "" when null.
std::string incomplete_reason_of(const nlohmann::json& summary) {
  const auto reason = summary.find("incomplete_reason");
  return reason != summary.end() && reason->is_string() ? reason->get<std::string>() : "";
}

}  // namespace

struct Runner::State {
  RunRequest request;
  // The reporters and the lists below; the signal thread uses them too, and gives up when it
  // cannot have them in time (the main thread is stuck in a write): the sentinel then writes
  // instead.
  std::timed_mutex mutex;
  std::unique_ptr<RunWriter> writer;                 // the run directory, on the root
  std::vector<std::unique_ptr<Reporter>> reporters;  // its files first, then the request's
  std::vector<Measurement> measurements;             // the run's, every rank's (root)
  std::vector<Finding> findings;                     // as written, remedies included (root)
  ProbeStart in_flight;                              // the probe running now
  std::string started_utc;
  // Where the time went (summary.json "timing"): the process's age when the first probe began
  // (MPI start-up, the world, the run directory), each probe, the whole-run judges, evidence on a
  // FAIL, and writing run.h5 and the final summary.
  double startup_s = 0;
  double first_probe_at = 0;  // now_seconds() when the first probe began
  std::vector<std::pair<std::string, double>> probe_seconds;
  double judgement_s = 0;
  double evidence_s = 0;
  double writing_s = 0;
  std::string current_probe;
  std::vector<std::string> probes_run;
  std::vector<std::pair<std::string, std::string>> probes_waived;
  std::vector<std::pair<std::string, std::string>> probes_errored;
  std::vector<std::string> hosts;
  std::vector<std::string> evidence_hosts;               // hosts whose evidence/<host>/ was written
  nlohmann::json host_ranks = nlohmann::json::object();  // host -> its ranks
  int ranks = 0;
  std::string incomplete_reason;  // why the run ended early; sticky once set
  std::string stop_reason;        // results cannot be written: the run stops after this probe
  NodeFitness fitness;            // this rank's node, as node.preflight found it
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
  if (!rank_status().claim_last_words(RankStatus::by_rank)) return;
  const std::string reason = interruption_reason();
  if (interrupted_by_failure()) {
    Finding finding;
    finding.severity = Severity::error;
    finding.probe = s.current_probe;
    finding.message = reason;
    finding.remedy = kFailureRemedy;
    s.findings.push_back(finding);
    report([&](Reporter& r) { r.finding(finding); });
    s.probes_errored.emplace_back(s.current_probe, reason);
  }
  const nlohmann::json summary = write_summary(reason);
  RunEnd end;
  end.verdict = verdict_of(s.findings, true);
  end.exit_code = 3;
  end.incomplete_reason = incomplete_reason_of(summary);
  end.findings = &s.findings;
  end.summary = &summary;
  end.last_words = true;
  report([&](Reporter& r) { r.run_finished(end); });
}

template <typename Event>
void Runner::report(Event&& event) {
  State& s = *state_;
  for (auto& reporter : s.reporters) {
    try {
      event(*reporter);
    } catch (const ResultsWriteError& error) {
      if (!s.stop_reason.empty()) continue;
      s.stop_reason = error.what();
      std::fprintf(stderr, "fabcheck: %s; the run ends after this probe\n", error.what());
    }
  }
}

nlohmann::json Runner::timing_json() const {
  // Caller holds the mutex.
  const State& s = *state_;
  nlohmann::json probes = nlohmann::json::array();
  double probes_s = 0;
  for (const auto& [id, seconds] : s.probe_seconds) {
    probes.push_back({{"id", id}, {"seconds", seconds}});
    probes_s += seconds;
  }
  const double since_first = s.first_probe_at > 0 ? now_seconds() - s.first_probe_at : 0;
  return {{"wall_s", s.startup_s + since_first},
          {"startup_s", s.startup_s},
          {"probes_s", probes_s},
          {"probes", probes},
          {"judgement_s", s.judgement_s},
          {"evidence_s", s.evidence_s},
          {"writing_s", s.writing_s}};
}

nlohmann::json Runner::write_summary(const std::string& reason) {
  // Caller holds the mutex. The first reason a run became incomplete (a timeout, a signal) sticks;
  // "in progress" is a placeholder that any later summary replaces.
  State& s = *state_;
  if (!s.writer) return {};
  if (s.incomplete_reason.empty() && !reason.empty() && reason != kInProgress)
    s.incomplete_reason = reason;
  const bool ended_early = !s.incomplete_reason.empty() || reason == kInProgress;
  std::string incomplete_reason = s.incomplete_reason.empty() ? reason : s.incomplete_reason;
  if (incomplete_reason.empty() && !s.probes_errored.empty()) {
    const auto& [probe, message] = s.probes_errored.front();
    incomplete_reason = probe + " errored: " + message;
  }
  nlohmann::json summary = summary_json(incomplete_reason, ended_early);
  // A final summary (the end, a timeout, an interrupt): metrics.prom and junit.xml follow it.
  const bool final = reason != kInProgress;
  report([&](Reporter& r) { r.summary(summary, final); });
  return summary;
}

nlohmann::json Runner::summary_json(const std::string& incomplete_reason, bool ended_early) const {
  const State& s = *state_;
  const auto& findings = s.findings;
  const Verdict verdict = verdict_of(findings, !incomplete_reason.empty());
  nlohmann::json counts;
  for (Severity severity :
       {Severity::pass, Severity::warn, Severity::fail, Severity::waived, Severity::error}) {
    counts[to_string(severity)] = 0;
  }
  for (const auto& [severity, count] : count_by_severity(findings))
    counts[to_string(severity)] = count;
  nlohmann::json waived = nlohmann::json::array();
  for (const auto& [id, why] : s.probes_waived) waived.push_back({{"id", id}, {"reason", why}});
  nlohmann::json errored = nlohmann::json::array();
  for (const auto& [id, message] : s.probes_errored)
    errored.push_back({{"id", id}, {"message", message}});
  nlohmann::json summary = {
      {"schema_version", kSchemaVersion},
      {"kind", "summary"},
      {"fabcheck_version", s.request.versions.value("fabcheck", "")},
      {"verdict", to_string(verdict)},
      {"exit_code", ended_early ? 3 : exit_code_of(verdict)},
      {"counts", counts},
      {"probes", {{"run", s.probes_run}, {"waived", waived}, {"errored", errored}}},
      {"hosts", s.hosts},
      {"host_ranks", s.host_ranks},
      {"ranks", s.ranks},
      {"command_line", s.request.command_line},
      {"plan", s.request.plan_name},
      {"profile",
       {{"name", s.request.profile.name},
        {"path", s.request.profile.path},
        {"reason", s.request.profile_reason}}},
      {"started_utc", s.started_utc},
      {"finished_utc", ended_early ? nlohmann::json() : nlohmann::json(utc_timestamp())},
      {"incomplete_reason",
       incomplete_reason.empty() ? nlohmann::json() : nlohmann::json(incomplete_reason)},
      {"versions", s.request.versions},
      {"environment", s.request.environment},
      {"run_dir", s.writer->dir().string()},
      {"timing", timing_json()},
  };
  if (!s.request.estimate.is_null()) summary["estimate"] = s.request.estimate;
  if (!s.evidence_hosts.empty())
    summary["evidence"] = {{"dir", "evidence"}, {"hosts", s.evidence_hosts}};
  // Per node: its verdict, and the nodes a scheduler should drain or hold, with the reason.
  const auto nodes = node_verdicts(findings, s.hosts, !incomplete_reason.empty());
  summary.update(
      node_answers_json(nodes, node_actions(nodes, findings, incomplete_reason), findings));
  return summary;
}

void Runner::record(const Finding& finding) {
  // Caller holds the mutex. A FAIL naming one node carries the operator's action first ("drain
  // node07: ...").
  State& s = *state_;
  Finding written = finding;
  written.remedy = remedy_with_operator_action(finding);
  s.findings.push_back(written);
  report([&](Reporter& r) { r.finding(written); });
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
  // Every rank must agree: a probe that does not apply on one rank is waived on all.
  Applicability mine = applicability_of(probe, world, s.request.options);
  if (mine.applies && probe.heavy() && !s.fitness.fit()) {
    std::string reasons;
    for (const auto& reason : s.fitness.unfit_reasons)
      reasons += (reasons.empty() ? "" : "; ") + reason;
    mine = Applicability::waived("node not fit to be measured (node.preflight): " + reasons);
  }
  const auto verdicts = world.gather_to_root(mine.applies ? std::string() : mine.reason);
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
  waive_reason = world.broadcast_from_root(waive_reason);
  if (!waive_reason.empty()) {
    if (!world.is_root()) return;
    std::lock_guard lock(s.mutex);
    Finding finding;
    finding.severity = Severity::waived;
    finding.probe = id;
    finding.message = id + " waived: " + waive_reason;
    s.findings.push_back(finding);
    report([&](Reporter& r) { r.finding(finding); });
    s.probes_waived.emplace_back(id, waive_reason);
    end.outcome = ProbeOutcome::waived;
    end.reason = waive_reason;
    end.seconds = now_seconds() - began;
    report([&](Reporter& r) { r.probe_finished(end); });
    write_summary(kInProgress);
    return;
  }

  // A margin over the probe's own limit, so a backend that bounds its operations itself (NCCL
  // aborts its communicators and names the GPUs) reports first.
  world.checkpoint("probe " + id, s.request.options.probe_timeout_s + kWatchdogMargin_s);
  CollectingSink::Forward forward;
  if (world.is_root()) {
    forward = [&s, this](const Measurement* figure, const std::string* note) {
      std::lock_guard lock(s.mutex);
      if (figure) report([&](Reporter& r) { r.progress(s.in_flight, *figure); });
      if (note) report([&](Reporter& r) { r.note(s.in_flight, *note); });
    };
  }
  CollectingSink sink(world, forward);
  RunContext context{world, s.request.options, s.request.out_dir, &s.fitness};
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
    std::fprintf(stderr, "fabcheck: %s: %s: %s\n", world.describe_rank(world.rank()).c_str(),
                 id.c_str(), failed.message.c_str());
  }
  if (watch) {
    emit_counter_growth(s.request.monitors, counters_before, s.request.options, id,
                        now_seconds() - started_s, sink);
  }
  world.checkpoint("gather results of " + id, 120);
  const auto gathered = world.gather_to_root(sink.encoded());
  if (!world.is_root()) return;

  std::lock_guard lock(s.mutex);
  s.probes_run.push_back(id);
  std::vector<Measurement> measurements;  // every rank's, in rank order
  std::vector<std::string> notes;         // the other ranks' (the root's went out as they came)
  for (std::size_t r = 0; r < gathered.size(); ++r)
    decode(gathered[r], static_cast<int>(r), measurements, notes);
  for (const auto& note : notes) report([&](Reporter& r) { r.note(s.in_flight, note); });
  s.measurements.insert(s.measurements.end(), measurements.begin(), measurements.end());
  report([&](Reporter& r) { r.measurements(probe.info(), measurements); });
  for (const auto& measurement : measurements) {
    if (measurement.status == MeasurementStatus::error && end.outcome != ProbeOutcome::errored) {
      s.probes_errored.emplace_back(id, measurement.message);
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
  // The root names the hosts to gather on, each with the FAIL findings about it (a finding across
  // several hosts goes to each of them); every rank learns the list.
  std::string plan;
  if (world.is_root() && s.request.gather_evidence) {
    std::lock_guard lock(s.mutex);
    nlohmann::json by_host = nlohmann::json::object();
    for (const Finding& finding : s.findings) {
      if (finding.severity != Severity::fail || finding.host.empty()) continue;
      std::stringstream hosts(finding.host);
      std::string host;
      while (std::getline(hosts, host, ',')) by_host[host].push_back(to_json(finding));
    }
    if (!by_host.empty()) plan = by_host.dump();
  }
  plan = world.broadcast_from_root(plan);
  if (plan.empty()) return;
  world.checkpoint("gather evidence", s.request.evidence_limit_s + kWatchdogMargin_s);
  const auto by_host = nlohmann::json::parse(plan);
  nlohmann::json mine = nlohmann::json::array();
  if (world.local_rank() == 0 && by_host.contains(world.host())) {
    std::vector<Finding> failures;
    for (const auto& json : by_host[world.host()])
      failures.push_back(finding_from_json(json, "evidence plan"));
    try {
      for (auto& file : s.request.gather_evidence(failures, s.request.out_dir))
        mine.push_back({{"name", file.name}, {"text", file.text}});
    } catch (const std::exception& error) {
      mine.push_back(
          {{"name", "index.txt"}, {"text", std::string("not gathered: ") + error.what()}});
    }
  }
  world.checkpoint("gather evidence files", 120);
  const auto gathered = world.gather_to_root(
      mine.empty() ? std::string()
                   : mine.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!world.is_root()) return;
  std::lock_guard lock(s.mutex);
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    if (gathered[r].empty()) continue;
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& file : nlohmann::json::parse(gathered[r]))
      files.emplace_back(file.at("name").get<std::string>(), file.at("text").get<std::string>());
    const std::string& host = world.hosts()[r];
    report([&](Reporter& reporter) { reporter.evidence(host, files); });
    s.evidence_hosts.push_back(host);
  }
}

int Runner::execute(World& world) {
  State& s = *state_;
  // The root names and makes the run directory; every rank learns the name and whether that worked.
  if (s.request.out_dir.empty() && world.is_root()) {
    s.request.out_dir =
        std::filesystem::path("fabcheck-results") / (utc_timestamp_compact() + "-" + world.host());
  }
  s.request.out_dir = world.broadcast_from_root(s.request.out_dir.string());
  std::string failure;
  if (world.is_root()) {
    try {
      std::lock_guard lock(s.mutex);
      s.writer = std::make_unique<RunWriter>(s.request.out_dir);
      s.reporters = run_directory_reporters(*s.writer, s.request.prometheus_dir);
      for (auto& reporter : s.request.reporters) s.reporters.push_back(std::move(reporter));
      s.request.reporters.clear();
      rank_status().run_dir.store(std::filesystem::absolute(s.request.out_dir).string());
      s.started_utc = utc_timestamp();
      s.hosts = world.distinct_hosts();
      for (const auto& host : s.hosts) s.host_ranks[host] = nlohmann::json::array();
      for (int r = 0; r < world.size(); ++r)
        s.host_ranks[world.hosts()[static_cast<std::size_t>(r)]].push_back(r);
      s.ranks = world.size();
      RunStart start;
      start.plan = s.request.plan_name;
      for (const Probe* probe : s.request.probes) start.probes.push_back(&probe->info());
      start.hosts = s.hosts;
      start.ranks = s.ranks;
      start.run_dir = s.request.out_dir;
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
  failure = world.broadcast_from_root(failure);
  if (!failure.empty()) {
    if (world.is_root()) std::fprintf(stderr, "fabcheck: %s\n", failure.c_str());
    return 2;
  }
  s.last_words = std::make_unique<ScopedCleanup>([this] { write_last_words(); });

  s.first_probe_at = now_seconds();
  s.startup_s = process_age_s();
  for (Probe* probe : s.request.probes) {
    const double began = now_seconds();
    run_probe(world, *probe);
    std::string stop;
    if (world.is_root()) {
      std::lock_guard lock(s.mutex);
      s.probe_seconds.emplace_back(probe->id(), now_seconds() - began);
      stop = s.stop_reason;
    }
    if (!world.broadcast_from_root(stop).empty()) break;
  }

  int exit_code = 0;
  if (world.is_root()) {
    std::lock_guard lock(s.mutex);
    const Stopwatch judging;
    // The runner holds every measurement of the run: the whole-run judges read them there.
    for (const auto& finding :
         run_judges(s.request.judges, JudgeScope::whole_run, s.measurements, s.request.profile)) {
      record(finding);
    }
    // Data verified element by element is judged too: one PASS per probe that found none wrong.
    for (const auto& finding : verification_passes(s.measurements)) record(finding);
    s.judgement_s = judging.elapsed_s();
  }
  const Stopwatch evidence;
  gather_evidence(world);
  if (world.is_root()) {
    std::lock_guard lock(s.mutex);
    s.evidence_s = evidence.elapsed_s();
    const Stopwatch writing;
    report([&](Reporter& r) { r.results_complete(s.measurements, s.findings); });
    s.writing_s = writing.elapsed_s();
    if (!s.stop_reason.empty() && s.incomplete_reason.empty())
      s.incomplete_reason = "results not fully written: " + s.stop_reason;
    // A run that judged nothing (an empty profile, sizes below one element, all waived) is not a
    // pass: the summary, the verdict line and the exit code all say so.
    if (s.incomplete_reason.empty() && s.probes_errored.empty() && !judged_anything(s.findings)) {
      s.incomplete_reason =
          "nothing was judged: no expectation of profile " + s.request.profile.name +
          " matched a measurement" +
          (s.probes_run.empty() ? std::string(" (no probe ran: all waived)") : std::string());
    }
    nlohmann::json summary = write_summary("");
    if (!s.stop_reason.empty() && s.incomplete_reason.find(s.stop_reason) == std::string::npos) {
      s.incomplete_reason = "results not fully written: " + s.stop_reason;
      summary = write_summary("");  // the summary itself hit it: try once more, saying so
    }
    const bool ended_early = !s.incomplete_reason.empty();
    exit_code = ended_early ? 3 : exit_code_of(verdict_of(s.findings));
    RunEnd end;
    end.verdict = verdict_of(s.findings, ended_early);
    end.exit_code = exit_code;
    // The summary's: a probe that errored makes the run incomplete too.
    end.incomplete_reason = incomplete_reason_of(summary);
    end.findings = &s.findings;
    end.summary = &summary;
    report([&](Reporter& r) { r.run_finished(end); });
  }
  exit_code = std::stoi(world.broadcast_from_root(std::to_string(exit_code)));
  return exit_code;
}

}  // namespace fabcheck
