// metrics.prom: the node_exporter textfile of a run, rendered and replaced atomically.
#include "results/prometheus_writer.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/sys/dir_handle.hpp"
#include "results/record_json.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using Labels = std::vector<std::pair<std::string, std::string>>;

// How a fabcheck unit becomes a Prometheus family in base units.
struct UnitFamily {
  const char* unit;
  const char* family;
  const char* metric_suffix;  // a metric name ending in it names this unit: left out of the label
  double multiply;  // fabcheck value x multiply / divide = the family's value (dividing by 1e6
  double divide;    // rather than multiplying by 1e-6 keeps 12.5 us exactly 1.25e-05 s)
  const char* what;
};

constexpr UnitFamily kUnitFamilies[] = {
    {"GB/s", "fabcheck_bandwidth_bytes_per_second", "_gbps", 1e9, 1,
     "bandwidth (fabcheck unit GB/s)"},
    {"Gb/s", "fabcheck_link_rate_bits_per_second", "_gbps", 1e9, 1,
     "link rate (fabcheck unit Gb/s)"},
    {"us", "fabcheck_duration_seconds", "_us", 1, 1e6, "time or latency (fabcheck unit us)"},
    {"count", "fabcheck_counted", "", 1, 1, "a count (wrong elements, errors, hops)"},
    {"op/s", "fabcheck_operations_per_second", "", 1, 1, "operations per second"},
    {"IOPS", "fabcheck_operations_per_second", "_iops", 1, 1, "operations per second"},
    {"TFLOP/s", "fabcheck_flops_per_second", "_tflops", 1e12, 1,
     "floating-point throughput (fabcheck unit TFLOP/s)"},
    {"MHz", "fabcheck_clock_hertz", "_mhz", 1e6, 1, "clock frequency (fabcheck unit MHz)"},
    {"W", "fabcheck_power_watts", "_w", 1, 1, "power"},
    {"C", "fabcheck_temperature_celsius", "_c", 1, 1, "temperature"},
    {"ratio", "fabcheck_ratio", "", 1, 1, "a ratio"},
    {"%", "fabcheck_ratio", "_pct", 1, 100, "a ratio (fabcheck unit %)"},
};

struct FamilyChoice {
  std::string name;
  std::string metric_suffix;
  double multiply;
  double divide;
  std::string what;
};

// The family of a unit; "fabcheck_measurement_<unit>" for one not in the table, in the charset
// [a-z0-9_] only.
FamilyChoice family_of_unit(const std::string& unit) {
  for (const UnitFamily& known : kUnitFamilies) {
    if (unit == known.unit)
      return {known.family, known.metric_suffix, known.multiply, known.divide, known.what};
  }
  std::string name = "fabcheck_measurement";
  std::string suffix;
  for (const char c : unit) {
    const bool word =
        std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 128;
    if (word)
      suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!suffix.empty() && suffix.back() != '_')
      suffix += '_';
  }
  while (!suffix.empty() && suffix.back() == '_') suffix.pop_back();
  if (!suffix.empty()) name += "_" + suffix;
  return {name, "", 1, 1, "a figure in unit \"" + unit + "\", which has no family of its own"};
}

// The metric label of a figure: its name without the suffix that names the fabcheck unit the family
// has converted ("time_us" in fabcheck_duration_seconds is "time", "steal_pct" in fabcheck_ratio
// "steal"), so a label never claims a unit its value is no longer in.
std::string metric_label(const std::string& metric, const FamilyChoice& family) {
  const std::string& suffix = family.metric_suffix;
  if (suffix.empty() || metric.size() <= suffix.size() ||
      metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return metric;
  }
  return metric.substr(0, metric.size() - suffix.size());
}

std::string escape(const std::string& text, bool quote) {
  std::string out;
  for (const char c : valid_utf8(text)) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quote)
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

// Seconds since the epoch of "2026-11-30T06:09:26Z"; nullopt for anything else.
std::optional<double> epoch_seconds(const nlohmann::json& text) {
  if (!text.is_string()) return std::nullopt;
  std::tm utc{};
  char zone = 0;
  const std::string value = text.get<std::string>();
  if (std::sscanf(value.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &utc.tm_year, &utc.tm_mon,
                  &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return static_cast<double>(timegm(&utc));
}

std::string text_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Families in order of first use, each with its samples; a label set seen twice is kept once.
class Exposition {
 public:
  void family(const std::string& name, const std::string& help) {
    if (index_.count(name) != 0) return;
    index_[name] = families_.size();
    families_.push_back({name, help, {}, {}});
  }

  // Empty label values are left out (Prometheus reads an empty value as no label).
  void sample(const std::string& name, const Labels& labels, double value) {
    Family& family = families_.at(index_.at(name));
    std::string text;
    for (const auto& [key, label_value] : labels) {
      if (label_value.empty()) continue;
      text += (text.empty() ? "" : ",") + key + "=\"" + escape(label_value, true) + "\"";
    }
    if (!family.seen.insert(text).second) {
      ++dropped_;
      return;
    }
    family.lines.push_back(name + (text.empty() ? "" : "{" + text + "}") + " " +
                           format_value(value) + "\n");
  }

  std::string text() const {
    std::string out;
    for (const Family& family : families_) {
      if (family.lines.empty()) continue;
      out += "# HELP " + family.name + " " + escape(family.help, false) + "\n";
      out += "# TYPE " + family.name + " gauge\n";
      for (const std::string& line : family.lines) out += line;
    }
    if (dropped_ > 0) {
      out += fmt::format("# fabcheck: {} figure(s) left out: same labels as an earlier one\n",
                         dropped_);
    }
    return out;
  }

 private:
  struct Family {
    std::string name;
    std::string help;
    std::vector<std::string> lines;
    std::set<std::string> seen;
  };
  std::vector<Family> families_;
  std::map<std::string, std::size_t> index_;
  int dropped_ = 0;
};

std::string plan_of(const nlohmann::json& summary) {
  const std::string plan = text_of(summary, "plan");
  return plan.empty() ? "probes" : plan;
}

void add_run(Exposition& out, const nlohmann::json& summary, const std::string& plan) {
  const Labels run{{"plan", plan}};
  out.family("fabcheck_run_verdict",
             "verdict of the last fabcheck run of this plan: 1 for the verdict it reached");
  const std::string verdict = text_of(summary, "verdict");
  for (const char* state : {"pass", "warn", "fail", "incomplete"}) {
    out.sample("fabcheck_run_verdict", {{"plan", plan}, {"verdict", state}},
               verdict == state ? 1 : 0);
  }
  if (summary.contains("exit_code") && summary["exit_code"].is_number_integer()) {
    out.family("fabcheck_run_exit_code",
               "exit code of the run: 0 pass or warn, 1 fail, 2 usage, 3 incomplete");
    out.sample("fabcheck_run_exit_code", run, summary["exit_code"].get<int>());
  }
  out.family("fabcheck_run_findings", "findings of the run per severity");
  const nlohmann::json counts = summary.value("counts", nlohmann::json::object());
  for (const char* severity : {"pass", "warn", "fail", "waived", "error"}) {
    const auto it = counts.find(severity);
    const double count = it != counts.end() && it->is_number() ? it->get<double>() : 0;
    out.sample("fabcheck_run_findings", {{"plan", plan}, {"severity", severity}}, count);
  }
  if (summary.contains("ranks") && summary["ranks"].is_number_integer()) {
    out.family("fabcheck_run_ranks", "MPI ranks of the run");
    out.sample("fabcheck_run_ranks", run, summary["ranks"].get<int>());
  }
  if (const auto started = epoch_seconds(summary.value("started_utc", nlohmann::json()))) {
    out.family("fabcheck_run_started_timestamp_seconds", "when the run started, Unix time");
    out.sample("fabcheck_run_started_timestamp_seconds", run, *started);
  }
  if (const auto finished = epoch_seconds(summary.value("finished_utc", nlohmann::json()))) {
    out.family("fabcheck_run_finished_timestamp_seconds",
               "when the run finished, Unix time (absent while it runs or when it was cut short)");
    out.sample("fabcheck_run_finished_timestamp_seconds", run, *finished);
  }
  // The host list and the run folder are no labels: each run (and each node joining) would start a
  // new series. Their count is a gauge; the names are in summary.json.
  int hosts = 0;
  for (const auto& host : summary.value("hosts", nlohmann::json::array()))
    hosts += host.is_string();
  out.family("fabcheck_run_hosts", "hosts of the run");
  out.sample("fabcheck_run_hosts", run, hosts);
  const nlohmann::json profile = summary.value("profile", nlohmann::json::object());
  out.family("fabcheck_run_info", "the run's fabcheck version and profile (value 1)");
  out.sample("fabcheck_run_info",
             {{"plan", plan},
              {"version", text_of(summary, "fabcheck_version")},
              {"profile", text_of(profile, "name")}},
             1);
}

void add_probe_status(Exposition& out, const nlohmann::json& summary, const std::string& plan) {
  const nlohmann::json probes = summary.value("probes", nlohmann::json::object());
  std::map<std::string, std::string> status;  // probe -> ok | waived | error
  for (const auto& id : probes.value("run", nlohmann::json::array())) {
    if (id.is_string()) status[id.get<std::string>()] = "ok";
  }
  for (const auto& entry : probes.value("waived", nlohmann::json::array())) {
    if (entry.is_object()) status[text_of(entry, "id")] = "waived";
  }
  for (const auto& entry : probes.value("errored", nlohmann::json::array())) {
    if (entry.is_object()) status[text_of(entry, "id")] = "error";
  }
  out.family("fabcheck_probe_status",
             "each probe of the run: 1 with its status (ok, waived, error)");
  for (const auto& [probe, state] : status) {
    if (!probe.empty())
      out.sample("fabcheck_probe_status", {{"plan", plan}, {"probe", probe}, {"status", state}}, 1);
  }
}

void add_findings(Exposition& out, const std::vector<Finding>& findings, const std::string& plan) {
  // Counted per probe, metric, subject, host and severity: one series each, however many sizes.
  std::map<std::vector<std::string>, int> counts;
  for (const Finding& f : findings) {
    ++counts[{f.probe, f.metric, f.subject, f.host, to_string(f.severity)}];
  }
  out.family("fabcheck_findings", "findings per probe, metric, subject, host and severity");
  for (const auto& [key, count] : counts) {
    out.sample("fabcheck_findings",
               {{"plan", plan},
                {"probe", key[0]},
                {"metric", key[1]},
                {"subject", key[2]},
                {"host", key[3]},
                {"severity", key[4]}},
               count);
  }
}

void add_measurements(Exposition& out, const std::vector<Measurement>& measurements,
                      const std::string& plan) {
  for (const Measurement& m : measurements) {
    if (m.status != MeasurementStatus::ok) continue;
    const FamilyChoice family = family_of_unit(m.unit);
    const std::string& name = family.name;
    out.family(name, "fabcheck measurements: " + family.what +
                         "; label metric names the figure (without a unit suffix), size is bytes");
    out.sample(name,
               {{"plan", plan},
                {"probe", m.probe},
                {"metric", metric_label(m.metric, family)},
                {"size", m.size_bytes ? std::to_string(*m.size_bytes) : std::string()},
                {"subject", m.subject},
                {"peer", m.peer},
                {"placement", param_of(m, "placement")},
                // A collective's element type and reduction (--dtype, --op): each combination is a
                // series of its own. Records without a redop (not a collective's, or from before
                // --dtype) keep their labels.
                {"dtype", m.params.contains("redop") ? param_of(m, "type") : std::string()},
                {"redop", param_of(m, "redop")},
                {"host", m.host},
                {"rank", m.rank >= 0 ? std::to_string(m.rank) : std::string()}},
               m.value * family.multiply / family.divide);
  }
}

}  // namespace

std::string render_prometheus(const std::vector<Measurement>& measurements,
                              const std::vector<Finding>& findings, const nlohmann::json& summary) {
  const std::string plan = plan_of(summary);
  Exposition out;
  add_run(out, summary, plan);
  add_probe_status(out, summary, plan);
  add_findings(out, findings, plan);
  add_measurements(out, measurements, plan);
  return out.text();
}

std::string prometheus_file_name(const nlohmann::json& summary) {
  std::string name;
  for (const char c : plan_of(summary)) {
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  }
  return "fabcheck_" + name + ".prom";
}

void write_prometheus(const DirHandle& dir, const std::string& name,
                      const std::vector<Measurement>& measurements,
                      const std::vector<Finding>& findings, const nlohmann::json& summary) {
  const std::string text = render_prometheus(measurements, findings, summary);
  try {
    // node_exporter usually runs as another user: the file must be readable by all.
    dir.publish_file(name, text, 0644);
  } catch (const std::system_error& error) {
    throw std::runtime_error(std::string("cannot write ") + error.what());
  }
}

void write_prometheus(const fs::path& file, const std::vector<Measurement>& measurements,
                      const std::vector<Finding>& findings, const nlohmann::json& summary) {
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  write_prometheus(DirHandle::open_output_folder(dir, "--prometheus-dir"), file.filename().string(),
                   measurements, findings, summary);
}

}  // namespace fabcheck
