// Fleet evaluation: parallel reading and re-judging of runs, peers across the fleet, node and
// fleet verdicts, and the files written with --out.
#include "results/fleet_evaluation.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "bench/sys/config_error.hpp"
#include "bench/sys/dir_handle.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/evaluator.hpp"
#include "results/json_text.hpp"
#include "results/record_json.hpp"
#include "results/run_reader.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

// What one worker found in one run, merged into the evaluation under its lock.
struct RunResult {
  std::vector<Finding> findings;                  // non-PASS
  std::map<std::string, int> passes;              // per host
  std::map<std::string, std::string> incomplete;  // host -> reason
  std::vector<std::string> hosts;
  std::string dir;
};

std::string stand_in_host(const RunInfo& run) {
  // A run that never said who it was (killed before its summary): its directory names it.
  return fs::path(run.dir).filename().string();
}

// A figure measured from `host` to another host ("node12/mlx5_3" as its peer) is a link's: the
// findings judged from it (thresholds, tiers) get a subject naming both ends, "node07/mlx5_3--
// node12/mlx5_3", so that they count for neither node (matched by probe, metric, subject, size
// and value, which a finding copies from its measurement).
void name_links(std::vector<Finding>& findings, const FleetStore& store,
                const std::vector<std::uint32_t>& rows, const std::string& host) {
  if (host.empty() || findings.empty()) return;
  using Key =
      std::tuple<std::string_view, std::string_view, std::string_view, std::uint64_t, double>;
  std::map<Key, std::string_view> links;  // -> the peer
  for (const std::uint32_t i : rows) {
    const FigureRow& row = store.rows[i];
    if (!std::isfinite(row.value)) continue;
    const std::string& peer = store.strings.text(row.peer);
    const std::size_t slash = peer.find('/');
    if (slash == std::string::npos || slash == 0 || peer.compare(0, slash, host) == 0) continue;
    links.emplace(Key{store.strings.text(row.probe), store.strings.text(row.metric),
                      store.strings.text(row.subject), row.size, row.value},
                  peer);
  }
  if (links.empty()) return;
  for (Finding& f : findings) {
    if (!f.observed || !std::isfinite(*f.observed)) continue;
    const auto found =
        links.find(Key{f.probe, f.metric, f.subject, f.size_bytes.value_or(kNoSize), *f.observed});
    if (found != links.end()) {
      f.subject = host + "/" + f.subject + "--" + std::string(found->second);
    }
  }
}

// What the evaluator reads of a stored row.
FigureView view_of(const FleetStore& store, const FigureRow& row, std::uint32_t backend_key,
                   std::uint32_t hosts_key) {
  FigureView figure;
  figure.probe = &store.strings.text(row.probe);
  figure.metric = &store.strings.text(row.metric);
  figure.subject = &store.strings.text(row.subject);
  figure.host = &store.strings.text(row.host);
  figure.value = row.value;
  if (row.has_size()) figure.size = row.size;
  figure.status = row.status;
  for (const auto& [key, value] : store.params_of(row.params)) {
    if (key == backend_key) figure.backend_param = &store.strings.text(value);
    if (key == hosts_key) figure.hosts_param = &store.strings.text(value);
  }
  return figure;
}

// Room in the first thread's store, into which the others are merged at the end, for `runs` runs
// like the first one read (and a tenth more): its rows are neither copied at each doubling nor all
// copied once more, alone, at the merge. Room never touched costs no memory.
void reserve_for_fleet(FleetStore& store, std::size_t runs) {
  const std::size_t margin = runs + runs / 10 + 1;
  store.rows.reserve(store.rows.size() * margin);
  store.stats.reserve(store.stats.size() * margin);
}

// Whether judges read a row's figure (`reads`, empty: every figure), asked once per probe and
// metric of the store.
class FigureReads {
 public:
  using Reads = std::function<bool(const std::string& probe, const std::string& metric)>;
  FigureReads(const FleetStore& store, const Reads& reads) : store_(store), reads_(reads) {}

  bool operator()(const FigureRow& row) {
    if (!reads_) return true;
    const std::uint64_t key = (static_cast<std::uint64_t>(row.probe) << 32) | row.metric;
    const auto found = read_.find(key);
    if (found != read_.end()) return found->second;
    const bool reads = reads_(store_.strings.text(row.probe), store_.strings.text(row.metric));
    read_.emplace(key, reads);
    return reads;
  }

 private:
  const FleetStore& store_;
  const Reads& reads_;
  std::unordered_map<std::uint64_t, bool> read_;
};

// Judges the run `run_index` of `store`, whose rows begin at `first_row` and run to the end: the
// evaluator's rules on every row (a row that only passes is counted, never turned back into a
// measurement), the family judges on the rows they read.
RunResult judge_run(const FleetStore& store, std::size_t run_index, std::size_t first_row,
                    const FleetEvaluationOptions& options) {
  RunResult result;
  const RunInfo& run = store.runs[run_index];
  result.dir = run.dir;
  result.hosts = run.hosts;
  if (result.hosts.empty()) result.hosts.push_back(stand_in_host(run));
  const Profile& profile = options.profile_for(run);
  const ProfileLookup lookup(profile);
  const std::uint32_t backend_key = store.strings.find("backend");
  const std::uint32_t hosts_key = store.strings.find("hosts");
  FigureReads judges_read(store, options.judges_read);

  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> rows_by_host;
  for (auto i = static_cast<std::uint32_t>(first_row); i < store.rows.size(); ++i)
    rows_by_host[store.rows[i].host].push_back(i);
  auto keep = [&](std::vector<Finding> findings, const std::string& host) {
    for (Finding& f : findings) {
      if (f.host.empty()) f.host = host;
      if (f.severity == Severity::pass) {
        ++result.passes[f.host];
      } else {
        result.findings.push_back(std::move(f));
      }
    }
  };
  std::vector<Measurement> all;
  const bool several = rows_by_host.size() > 1;
  for (const auto& [host, indices] : rows_by_host) {
    const std::string name =
        host != 0 ? store.strings.text(host)
                  : (result.hosts.size() == 1 ? result.hosts.front() : std::string());
    std::vector<Finding> findings;
    std::vector<Measurement> measurements;  // for the family judges
    for (const std::uint32_t i : indices) {
      const FigureRow& row = store.rows[i];
      const std::optional<std::size_t> passes =
          count_passes(view_of(store, row, backend_key, hosts_key), lookup);
      const bool wanted =
          options.judge_host || (several && options.judge_run) ? judges_read(row) : false;
      if (passes) result.passes[name] += static_cast<int>(*passes);
      if (passes && !wanted) continue;
      Measurement m = store.materialize(row);
      if (!passes) {
        for (Finding& f : evaluate_measurement(m, profile)) findings.push_back(std::move(f));
      }
      if (wanted) measurements.push_back(std::move(m));
    }
    if (options.judge_host) {
      for (Finding& f : options.judge_host(measurements, profile)) findings.push_back(std::move(f));
    }
    name_links(findings, store, indices, name);
    keep(std::move(findings), name);
    if (several && options.judge_run) {
      all.insert(all.end(), std::make_move_iterator(measurements.begin()),
                 std::make_move_iterator(measurements.end()));
    }
  }
  if (several && options.judge_run) keep(options.judge_run(all, profile), "");
  for (const Finding& carried : run.carried) {
    if (!carried.host.empty()) {
      result.findings.push_back(carried);
      continue;
    }
    for (const std::string& host : result.hosts) {
      Finding f = carried;
      f.host = host;
      result.findings.push_back(std::move(f));
    }
  }
  if (!run.incomplete_reason.empty()) {
    for (const std::string& host : result.hosts) result.incomplete[host] = run.incomplete_reason;
  }
  return result;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> link_ends(const std::string& subject) {
  const std::size_t dashes = subject.find("--");
  if (dashes == std::string::npos || dashes == 0 || dashes + 2 >= subject.size()) return {};
  auto host_of = [](const std::string& end) { return end.substr(0, end.find('/')); };
  return std::make_pair(host_of(subject.substr(0, dashes)), host_of(subject.substr(dashes + 2)));
}

FleetEvaluation evaluate_fleet(const std::vector<fs::path>& run_dirs,
                               const FleetEvaluationOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  FleetEvaluation evaluation;
  std::map<std::string, NodeSummary> nodes;
  std::map<std::string, int> passes;
  std::mutex lock;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;

  const unsigned threads =
      std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(run_dirs.size())));
  // A store per thread, merged once at the end: runs are read and judged without a lock, and each
  // thread's strings are interned once, not once per run.
  std::vector<FleetStore> stores(threads);
  auto worker = [&](unsigned thread) {
    FleetStore& store = stores[thread];
    while (true) {
      const std::size_t index = next.fetch_add(1);
      if (index >= run_dirs.size()) return;
      try {
        const std::size_t first_row = store.rows.size();
        const std::size_t run = store.runs.size();
        read_run_dir(run_dirs[index], store);
        if (run == 0 && thread == 0) reserve_for_fleet(store, run_dirs.size());
        RunResult result = judge_run(store, run, first_row, options);
        std::lock_guard guard(lock);
        for (Finding& f : result.findings) evaluation.findings.push_back(std::move(f));
        for (const auto& [host, count] : result.passes) passes[host] += count;
        for (const std::string& host : result.hosts) {
          NodeSummary& node = nodes[host];
          node.host = host;
          node.runs.push_back(result.dir);
        }
        for (const auto& [host, reason] : result.incomplete) {
          NodeSummary& node = nodes[host];
          node.host = host;
          if (node.incomplete_reason.empty()) node.incomplete_reason = reason;
        }
      } catch (...) {
        std::lock_guard guard(lock);
        if (!failure) failure = std::current_exception();
        next = run_dirs.size();
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
  evaluation.store = std::move(stores.front());
  for (unsigned t = 1; t < threads; ++t) evaluation.store.absorb(std::move(stores[t]));

  const auto runs_done = std::chrono::steady_clock::now();
  evaluation.seconds_runs = std::chrono::duration<double>(runs_done - started).count();
  // The peers of the whole fleet, with the tiers of the first run's profile for the notes.
  PeerJudgeOptions peers = options.peers;
  if (!evaluation.store.runs.empty()) {
    const Profile& profile = options.profile_for(evaluation.store.runs.front());
    peers.profile = &profile;
    evaluation.profile_name = profile.name;
  }
  for (Finding& f : judge_peers(evaluation.store, peers))
    evaluation.findings.push_back(std::move(f));
  if (options.judge_fleet && options.fleet_reads && peers.profile != nullptr) {
    FigureReads fleet_reads(evaluation.store, options.fleet_reads);
    std::vector<Measurement> rows;
    for (const FigureRow& row : evaluation.store.rows) {
      if (fleet_reads(row)) rows.push_back(evaluation.store.materialize(row));
    }
    for (Finding& f : options.judge_fleet(rows, *peers.profile)) {
      if (f.severity == Severity::pass) {
        // A PASS about many nodes (a group of like GPUs) counts for the fleet, for no node.
        if (f.host.empty()) {
          ++evaluation.counts[Severity::pass];
        } else {
          ++passes[f.host];
        }
      } else {
        evaluation.findings.push_back(std::move(f));
      }
    }
  }
  evaluation.seconds_peers =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - runs_done).count();

  std::stable_sort(
      evaluation.findings.begin(), evaluation.findings.end(),
      [](const Finding& a, const Finding& b) {
        return std::make_tuple(severity_order(a.severity), a.host, a.probe, a.subject, a.metric) <
               std::make_tuple(severity_order(b.severity), b.host, b.probe, b.subject, b.metric);
      });
  for (const auto& [host, count] : passes) {
    nodes[host].host = host;
    nodes[host].counts[Severity::pass] += count;
    evaluation.counts[Severity::pass] += count;
  }
  // A link between two nodes of the fleet, or a finding about several of its nodes at once (a
  // switch link: "n0,n1,n2,n3"), is no one node's fault: it drains none.
  auto is_link = [&nodes](const Finding& f) {
    const auto ends = link_ends(f.subject);
    if (ends && ends->first != ends->second && nodes.count(ends->first) &&
        nodes.count(ends->second))
      return true;
    if (f.host.find(',') == std::string::npos) return false;
    for (const std::string_view host : text::split(f.host, ',')) {
      if (!nodes.count(std::string(host))) return false;
    }
    return true;
  };
  std::map<std::string, std::vector<Finding>> by_host;
  for (std::size_t i = 0; i < evaluation.findings.size(); ++i) {
    const Finding& f = evaluation.findings[i];
    if (is_link(f)) {
      evaluation.links.push_back(i);
      ++evaluation.counts[f.severity];
      continue;
    }
    NodeSummary& node = nodes[f.host];
    node.host = f.host;
    node.findings.push_back(i);
    ++node.counts[f.severity];
    ++evaluation.counts[f.severity];
    by_host[f.host].push_back(f);
  }
  for (auto& [host, node] : nodes) {
    for (Severity s :
         {Severity::pass, Severity::warn, Severity::fail, Severity::waived, Severity::error}) {
      node.counts.try_emplace(s, 0);
    }
    node.verdict = verdict_of(by_host[host], !node.incomplete_reason.empty());
    if (node.verdict == Verdict::fail) {
      evaluation.drain.push_back(host);
    } else if (node.verdict == Verdict::incomplete) {
      evaluation.recheck.push_back(host);
    }
    evaluation.nodes.push_back(std::move(node));
  }
  for (Severity s :
       {Severity::pass, Severity::warn, Severity::fail, Severity::waived, Severity::error}) {
    evaluation.counts.try_emplace(s, 0);
  }
  evaluation.verdict = verdict_of(evaluation.findings, !evaluation.recheck.empty());
  evaluation.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return evaluation;
}

nlohmann::json fleet_summary_json(const FleetEvaluation& e) {
  auto counts_json = [](const std::map<Severity, int>& counts) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [severity, count] : counts) out[to_string(severity)] = count;
    return out;
  };
  std::map<Verdict, int> verdicts;
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeSummary& node : e.nodes) {
    ++verdicts[node.verdict];
    nlohmann::json worst = nlohmann::json::array();
    for (std::size_t i = 0; i < node.findings.size() && i < 5; ++i) {
      const Finding& f = e.findings[node.findings[i]];
      worst.push_back({{"severity", to_string(f.severity)},
                       {"probe", f.probe},
                       {"subject", f.subject},
                       {"message", f.message}});
    }
    nodes.push_back({{"host", node.host},
                     {"verdict", to_string(node.verdict)},
                     {"counts", counts_json(node.counts)},
                     {"runs", node.runs},
                     {"incomplete_reason", node.incomplete_reason.empty()
                                               ? nlohmann::json()
                                               : nlohmann::json(node.incomplete_reason)},
                     {"worst", worst}});
  }
  nlohmann::json links = nlohmann::json::array();
  for (const std::size_t i : e.links) {
    const Finding& f = e.findings[i];
    const auto ends = link_ends(f.subject);
    links.push_back({{"severity", to_string(f.severity)},
                     {"probe", f.probe},
                     {"metric", f.metric},
                     {"subject", f.subject},
                     {"hosts", {ends->first, ends->second}},
                     {"message", f.message}});
  }
  nlohmann::json by_verdict = nlohmann::json::object();
  for (Verdict v : {Verdict::pass, Verdict::warn, Verdict::fail, Verdict::incomplete}) {
    by_verdict[to_string(v)] = verdicts[v];
  }
  return {{"schema_version", kSchemaVersion},
          {"kind", "fleet_evaluation"},
          {"verdict", to_string(e.verdict)},
          {"exit_code", exit_code_of(e.verdict)},
          {"runs", e.store.runs.size()},
          {"measurements", e.store.rows.size()},
          {"nodes", e.nodes.size()},
          {"nodes_by_verdict", by_verdict},
          {"counts", counts_json(e.counts)},
          {"drain", e.drain},
          {"recheck", e.recheck},
          {"links", links},
          {"profile", e.profile_name},
          {"seconds", e.seconds},
          {"seconds_runs", e.seconds_runs},
          {"seconds_peers", e.seconds_peers},
          {"node_summaries", nodes}};
}

void write_fleet_evaluation(const FleetEvaluation& evaluation, const fs::path& dir) {
  // The folder is held open and checked on its descriptor (an existing one must be empty and
  // safe: this user's or root's, not writable by others without the sticky bit); each file is a
  // new name in it (DirHandle::publish_file without replacing), so a link or file planted there
  // meanwhile makes the write fail instead of being followed or truncated.
  std::error_code error;
  const auto status = fs::symlink_status(dir, error);
  DirHandle folder;
  if (fs::exists(status)) {
    if (!fs::is_directory(fs::status(dir, error))) {
      throw ConfigError(dir.string(), 0, "--out exists and is not a directory");
    }
    folder = DirHandle::open_output_folder(dir, "--out");
    if (!fs::is_empty(dir, error)) {
      throw ConfigError(dir.string(), 0,
                        "--out exists and is not empty; an earlier evaluation is never written "
                        "over (choose another directory)");
    }
  } else {
    fs::path name = dir.lexically_normal();
    if (!name.has_filename()) name = name.parent_path();
    const DirHandle parent = DirHandle::make_output_folder(name.parent_path(), "--out");
    try {
      folder = parent.make_dir(name.filename().string(), 0755);
    } catch (const std::system_error& failure) {
      throw ConfigError(dir.string(), 0, std::string("cannot create: ") + failure.what());
    }
  }
  auto write = [&](const std::string& name, const std::string& text) {
    try {
      folder.publish_file(name, text, 0644, false);
    } catch (const std::system_error& failure) {
      throw ConfigError(dir.string(), 0,
                        failure.code().value() == EEXIST
                            ? name + " appeared in --out while the evaluation was written; "
                                     "nothing is written over"
                            : std::string("cannot write: ") + failure.what());
    }
  };
  std::string findings;
  for (const Finding& f : evaluation.findings) findings += json_text(to_json(f)) + "\n";
  write("findings.jsonl", findings);
  write("fleet.json", json_text(fleet_summary_json(evaluation), 2) + "\n");
  std::string drain;
  for (const std::string& host : evaluation.drain) drain += host + "\n";
  write("drain.txt", drain);
}

}  // namespace fabcheck
