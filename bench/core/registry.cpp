// Registry of probes and selection of probes by id or family.
#include "bench/core/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "results/config_error.hpp"

namespace fabcheck {

void Registry::add(std::unique_ptr<Probe> probe) {
  if (find(probe->id()) != nullptr)
    throw std::logic_error("probe registered twice: " + probe->id());
  probes_.push_back(std::move(probe));
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
  std::vector<Measurement> ok;
  for (const auto& m : measurements) {
    if (m.status == MeasurementStatus::ok) ok.push_back(m);
  }
  std::vector<Finding> findings;
  for (const auto& judge : judges) {
    if (judge.scope != scope) continue;
    for (auto& finding : judge.judge(ok, profile)) findings.push_back(std::move(finding));
  }
  return findings;
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
  for (const auto& judge : judges_) {
    if (judge.validate) judge.validate(profile);
  }
  return profile;
}

std::vector<Probe*> Registry::select(const std::string& comma_separated_ids,
                                     bool skip_unknown) const {
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
    if (!matched && !skip_unknown) {
      std::string known;
      for (const auto& probe : probes_) known += (known.empty() ? "" : ", ") + probe->id();
      throw ConfigError("--probes: unknown probe \"" + id + "\" (known: " + known + ")");
    }
  }
  if (selected.empty()) throw ConfigError("--probes: no probe given");
  return selected;
}

}  // namespace fabcheck
