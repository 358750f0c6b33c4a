// Registry of probes and selection of probes by id or family; the options they declare, checked.
#include "bench/core/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>

#include "bench/core/plan.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

std::string before_dot(const std::string& key) { return key.substr(0, key.find('.')); }

}  // namespace

std::string family_of(const std::string& probe_id) { return before_dot(probe_id); }

void Registry::add(std::unique_ptr<Probe> probe) {
  const ProbeInfo& info = probe->info();
  if (find(info.id) != nullptr) throw std::logic_error("probe registered twice: " + info.id);
  for (const PlanPlace& place : info.plans) {
    const auto& plans = builtin_plans();
    if (std::none_of(plans.begin(), plans.end(),
                     [&](const Plan& plan) { return plan.name == place.plan; }))
      throw std::logic_error(info.id + " declares plan \"" + place.plan +
                             "\", which is not a built-in plan");
  }
  for (const OptionSpec& spec : info.options) {
    if ((spec.type == OptionType::choice || spec.type == OptionType::choice_list) &&
        spec.choices.empty())
      throw std::logic_error(info.id + ": option " + spec.key + " has no choices");
    const auto known = options_.find(spec.key);
    if (known != options_.end() && !(known->second.spec == spec)) {
      throw std::logic_error(info.id + " declares option " + spec.key + " unlike " +
                             known->second.probes.front() + " does");
    }
  }
  for (const OptionSpec& spec : info.options) {
    DeclaredOption& declared = options_[spec.key];
    declared.spec = spec;
    declared.probes.push_back(info.id);
    const std::string family = family_of(info.id);
    if (std::find(declared.families.begin(), declared.families.end(), family) ==
        declared.families.end())
      declared.families.push_back(family);
  }
  probes_.push_back(std::move(probe));
}

void Registry::validate_options(const std::map<std::string, std::string>& values,
                                const std::string& origin) const {
  for (const auto& [key, value] : values) {
    if (const auto known = options_.find(key); known != options_.end()) {
      validate_option_value(known->second.spec, value, origin);
      continue;
    }
    // Unknown: name the family that would own it (by the key's first part, or a known key that
    // shares it) and the closest known key.
    std::set<std::string> families;
    for (const auto& probe : probes_) families.insert(family_of(probe->id()));
    const std::string prefix = before_dot(key);
    std::string owner = families.count(prefix) ? prefix : "";
    std::vector<std::string> owner_keys;
    for (const auto& [known_key, declared] : options_) {
      if (owner.empty() && before_dot(known_key) == prefix && key.find('.') != std::string::npos)
        owner = declared.families.front();
    }
    for (const auto& [known_key, declared] : options_) {
      if (!owner.empty() && std::find(declared.families.begin(), declared.families.end(), owner) !=
                                declared.families.end())
        owner_keys.push_back(known_key);
    }
    std::vector<std::string> known_keys;
    for (const auto& [known_key, declared] : options_) known_keys.push_back(known_key);
    const std::string closest = closest_name(key, known_keys);
    std::string message = origin + " " + key + "=" + value + ": unknown option";
    if (!closest.empty()) message += " (did you mean " + closest + "?)";
    if (!owner.empty() && !owner_keys.empty()) {
      message +=
          "; the " + owner + " probes read " + fmt::format("{}", fmt::join(owner_keys, ", "));
    } else if (!owner.empty()) {
      message += "; the " + owner + " probes read no option";
    } else {
      message +=
          "; no probe family reads it (families: " + fmt::format("{}", fmt::join(families, ", ")) +
          ")";
    }
    throw ConfigError(message + "; `fabcheck list --options` lists every option");
  }
}

std::vector<std::string> Registry::unread_options(const std::map<std::string, std::string>& values,
                                                  const std::vector<Probe*>& probes) {
  std::vector<std::string> unread;
  for (const auto& [key, value] : values) {
    bool read = false;
    for (const Probe* probe : probes) {
      for (const OptionSpec& spec : probe->info().options) read = read || spec.key == key;
    }
    if (!read) unread.push_back(key);
  }
  return unread;
}

void check_probe_options(const std::vector<Probe*>& probes, const RunOptions& options) {
  for (const Probe* probe : probes) {
    if (probe->info().check_options) probe->info().check_options(options);
  }
}

std::uint64_t planned_storage_bytes(const std::vector<Probe*>& probes, const RunOptions& options,
                                    int world_size) {
  std::uint64_t most = 0;
  for (const Probe* probe : probes) {
    if (probe->info().storage_bytes)
      most = std::max(most, probe->info().storage_bytes(options, std::max(world_size, 1)));
  }
  return most;
}

Probe* Registry::find(const std::string& id) const {
  for (const auto& probe : probes_) {
    if (probe->id() == id) return probe.get();
  }
  return nullptr;
}

std::vector<Probe*> Registry::all() const {
  std::vector<Probe*> result;
  for (const auto& probe : probes_) result.push_back(probe.get());
  return result;
}

MetricCatalog Registry::catalog() const {
  MetricCatalog catalog;
  for (const auto& probe : probes_) {
    auto& metrics = catalog[probe->id()];
    for (const auto& spec : probe->metrics()) metrics[spec.name] = spec.info;
  }
  return catalog;
}

std::vector<Finding> run_judges(const std::vector<Judge>& judges, JudgeScope scope,
                                const std::vector<Measurement>& measurements,
                                const Profile& profile) {
  // Judges see only the figures that were taken; copied only when some were not (a fleet's
  // millions of measurements are almost all taken, and copying them was a third of `evaluate`).
  const auto taken = [](const Measurement& m) { return m.status == MeasurementStatus::ok; };
  std::vector<Measurement> only_taken;
  const bool all_taken = std::all_of(measurements.begin(), measurements.end(), taken);
  if (!all_taken)
    std::copy_if(measurements.begin(), measurements.end(), std::back_inserter(only_taken), taken);
  const std::vector<Measurement>& ok = all_taken ? measurements : only_taken;
  std::vector<Finding> findings;
  for (const auto& judge : judges) {
    if (judge.scope != scope) continue;
    for (auto& finding : judge.judge(ok, profile)) findings.push_back(std::move(finding));
  }
  return findings;
}

bool reads_everything(const Judge& judge) {
  return judge.reads.empty() ||
         std::any_of(judge.reads.begin(), judge.reads.end(),
                     [](const FigureRef& figure) { return figure.is_everything(); });
}

bool reads_figure(const Judge& judge, std::string_view probe, std::string_view metric) {
  return judge.reads.empty() || any_figure_matches(judge.reads, probe, metric);
}

bool reads_figure(const std::vector<Judge>& judges, std::string_view probe,
                  std::string_view metric) {
  return std::any_of(judges.begin(), judges.end(),
                     [&](const Judge& judge) { return reads_figure(judge, probe, metric); });
}

void Registry::add_judge(Judge judge) { judges_.push_back(std::move(judge)); }

NodeSettingCatalog Registry::node_settings() const {
  NodeSettingCatalog settings;
  for (const auto& judge : judges_) settings.insert(judge.settings.begin(), judge.settings.end());
  return settings;
}

void Registry::add_counter_monitor(CounterMonitor monitor) {
  monitors_.push_back(std::move(monitor));
}

Profile Registry::load_profile(const std::filesystem::path& path) const {
  Profile profile = fabcheck::load_profile(path, catalog(), node_settings());
  // [sdc] duration_s = 60 is the option sdc.duration_s, held to its rule.
  for (const auto& [key, value] : profile.sdc) {
    validate_options({{"sdc." + key, value}},
                     path.string() + ":" + std::to_string(profile.sdc_lines.at(key)) + " [sdc]");
  }
  for (const auto& judge : judges_) {
    if (judge.validate) judge.validate(profile);
  }
  return profile;
}

std::vector<Probe*> Registry::plan_probes(const std::string& plan) const {
  std::vector<std::pair<int, Probe*>> staged;
  for (const auto& probe : probes_) {
    for (const PlanPlace& place : probe->info().plans) {
      if (place.plan != plan) continue;
      staged.emplace_back(place.stage >= 0 ? place.stage : probe->info().plan_stage, probe.get());
      break;
    }
  }
  std::stable_sort(staged.begin(), staged.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Probe*> probes;
  for (const auto& [stage, probe] : staged) probes.push_back(probe);
  return probes;
}

std::vector<std::string> Registry::required_probes(const std::string& plan) const {
  std::vector<std::string> required;
  for (const Probe* probe : plan_probes(plan)) {
    for (const PlanPlace& place : probe->info().plans) {
      if (place.plan == plan && place.required) required.push_back(probe->id());
    }
  }
  return required;
}

std::vector<Probe*> Registry::select(const std::string& comma_separated_ids) const {
  std::vector<Probe*> selected;
  auto take = [&selected](Probe* probe) {
    if (std::find(selected.begin(), selected.end(), probe) == selected.end())
      selected.push_back(probe);
  };
  std::size_t start = 0;
  while (start <= comma_separated_ids.size()) {
    std::size_t end = comma_separated_ids.find(',', start);
    if (end == std::string::npos) end = comma_separated_ids.size();
    const std::string id = comma_separated_ids.substr(start, end - start);
    start = end + 1;
    if (id.empty()) continue;
    bool matched = false;
    if (id.size() > 2 && id.ends_with(".*")) {
      const std::string family = id.substr(0, id.size() - 1);  // "coll."
      for (const auto& probe : probes_) {
        if (probe->id().starts_with(family)) {
          take(probe.get());
          matched = true;
        }
      }
    } else if (Probe* probe = find(id)) {
      take(probe);
      matched = true;
    }
    if (!matched) {
      // The closest id (or family) first, as the options do; then every id.
      std::string known;
      std::vector<std::string> families;
      std::vector<std::string> candidates;  // each id, then its family
      for (const auto& probe : probes_) {
        known += (known.empty() ? "" : ", ") + probe->id();
        const std::string family = family_of(probe->id()) + ".*";
        if (std::find(families.begin(), families.end(), family) == families.end())
          families.push_back(family);
        candidates.push_back(probe->id());
        candidates.push_back(family);
      }
      const std::string closest = closest_name(id, candidates);
      throw ConfigError("--probes: unknown probe \"" + id + "\"" +
                        (closest.empty() ? "" : " (did you mean " + closest + "?)") + "; known: " +
                        known + "; or a family: " + fmt::format("{}", fmt::join(families, ", ")));
    }
  }
  if (selected.empty()) throw ConfigError("--probes: no probe given");
  return selected;
}

}  // namespace fabcheck
