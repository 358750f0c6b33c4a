// summary.json from the run's record: verdict, counts, probes, hosts, timing, per-node answers.
#include "bench/core/run_summary.hpp"

#include "bench/sys/timer.hpp"
#include "results/measurement.hpp"
#include "results/node_verdicts.hpp"
#include "results/run_writer.hpp"
#include "results/verdict.hpp"

namespace fabcheck {
namespace {

nlohmann::json summary_json(const RunRecord& r, const std::string& incomplete_reason,
                            bool ended_early) {
  const auto& findings = r.findings;
  const Verdict verdict = verdict_of(findings, !incomplete_reason.empty());
  nlohmann::json counts;
  for (Severity severity :
       {Severity::pass, Severity::warn, Severity::fail, Severity::waived, Severity::error}) {
    counts[to_string(severity)] = 0;
  }
  for (const auto& [severity, count] : count_by_severity(findings))
    counts[to_string(severity)] = count;
  nlohmann::json waived = nlohmann::json::array();
  for (const auto& [id, why] : r.probes_waived) waived.push_back({{"id", id}, {"reason", why}});
  nlohmann::json errored = nlohmann::json::array();
  for (const auto& [id, message] : r.probes_errored)
    errored.push_back({{"id", id}, {"message", message}});
  nlohmann::json summary = {
      {"schema_version", kSchemaVersion},
      {"kind", "summary"},
      {"fabcheck_version", r.versions.value("fabcheck", "")},
      {"verdict", to_string(verdict)},
      {"exit_code", ended_early ? 3 : exit_code_of(verdict)},
      {"counts", counts},
      {"probes", {{"run", r.probes_run}, {"waived", waived}, {"errored", errored}}},
      {"hosts", r.hosts},
      {"host_ranks", r.host_ranks},
      {"ranks", r.ranks},
      {"command_line", r.command_line},
      {"plan", r.plan_name},
      {"profile",
       {{"name", r.profile_name}, {"path", r.profile_path}, {"reason", r.profile_reason}}},
      {"started_utc", r.started_utc},
      {"finished_utc", ended_early ? nlohmann::json() : nlohmann::json(utc_timestamp())},
      {"incomplete_reason",
       incomplete_reason.empty() ? nlohmann::json() : nlohmann::json(incomplete_reason)},
      {"versions", r.versions},
      {"environment", r.environment},
      {"run_dir", r.run_dir},
      {"timing", timing_json(r.timing, now_seconds())},
  };
  if (!r.estimate.is_null()) summary["estimate"] = r.estimate;
  if (!r.evidence_hosts.empty())
    summary["evidence"] = {{"dir", "evidence"}, {"hosts", r.evidence_hosts}};
  // Per node: its verdict, and the nodes a scheduler should drain or hold, with the reason.
  const auto nodes = node_verdicts(findings, r.hosts, !incomplete_reason.empty());
  summary.update(node_answers_json(
      nodes, node_actions(nodes, findings, incomplete_reason, r.repairs), findings));
  return summary;
}

constexpr const char* kNotWritten = "results not fully written: ";

}  // namespace

nlohmann::json timing_json(const RunTiming& t, double now) {
  nlohmann::json probes = nlohmann::json::array();
  double probes_s = 0;
  for (const auto& [id, seconds] : t.probe_seconds) {
    probes.push_back({{"id", id}, {"seconds", seconds}});
    probes_s += seconds;
  }
  const double since_first = t.first_probe_at > 0 ? now - t.first_probe_at : 0;
  return {{"wall_s", t.startup_s + since_first},
          {"startup_s", t.startup_s},
          {"probes_s", probes_s},
          {"probes", probes},
          {"judgement_s", t.judgement_s},
          {"evidence_s", t.evidence_s},
          {"writing_s", t.writing_s}};
}

nlohmann::json RunSummary::json(const std::string& reason) {
  if (incomplete_reason_.empty() && !reason.empty() && reason != kRunInProgress)
    incomplete_reason_ = reason;
  const bool ended_early = !incomplete_reason_.empty() || reason == kRunInProgress;
  std::string incomplete_reason = incomplete_reason_.empty() ? reason : incomplete_reason_;
  if (incomplete_reason.empty() && !run.probes_errored.empty()) {
    const auto& [probe, message] = run.probes_errored.front();
    incomplete_reason = probe + " errored: " + message;
  }
  return summary_json(run, incomplete_reason, ended_early);
}

void RunSummary::judge_completion(const std::string& stop_reason) {
  if (!stop_reason.empty() && incomplete_reason_.empty())
    incomplete_reason_ = kNotWritten + stop_reason;
  if (incomplete_reason_.empty() && run.probes_errored.empty() && !judged_anything(run.findings)) {
    incomplete_reason_ =
        "nothing was judged: no expectation of profile " + run.profile_name +
        " matched a measurement" +
        (run.probes_run.empty() ? std::string(" (no probe ran: all waived)") : std::string());
  }
}

bool RunSummary::take_late_write_error(const std::string& stop_reason) {
  if (stop_reason.empty() || incomplete_reason_.find(stop_reason) != std::string::npos)
    return false;
  incomplete_reason_ = kNotWritten + stop_reason;
  return true;
}

std::string incomplete_reason_of(const nlohmann::json& summary) {
  const auto reason = summary.find("incomplete_reason");
  return reason != summary.end() && reason->is_string() ? reason->get<std::string>() : "";
}

}  // namespace fabcheck
