// FleetStore: interned strings and parameter sets, compact rows, and the way back to Measurement.
#include "results/fleet_store.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace fabcheck {

bool is_condition_parameter(std::string_view key) {
  static const std::set<std::string_view> keys{"backend",
                                               "type",
                                               "dtype",
                                               "placement",
                                               "op",
                                               "redop",
                                               "direction",
                                               "scope",
                                               "pattern",
                                               "engine",
                                               "queue_depth",
                                               "block_size",
                                               "direct",
                                               "memory",
                                               "model",
                                               "kind",
                                               "phase",
                                               "element",
                                               "m_n_k",
                                               "file_size",
                                               "ckpt_size",
                                               "files_per_rank",
                                               "read_queue_depth",
                                               "ranks",
                                               "hosts",
                                               "link_layer",
                                               "mode"};
  return keys.count(key) > 0;
}

namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "0000:17:00.0"
bool looks_like_bdf(std::string_view s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11}) {
    if (!is_hex(s[i])) return false;
  }
  return true;
}

}  // namespace

std::string subject_class(std::string_view subject) {
  if (looks_like_bdf(subject)) return "pci";
  std::string out;
  out.reserve(subject.size());
  for (std::size_t i = 0; i < subject.size(); ++i) {
    if (is_digit(subject[i])) {
      out += '#';
      while (i + 1 < subject.size() && is_digit(subject[i + 1])) ++i;
    } else {
      out += subject[i];
    }
  }
  return out;
}

std::string subject_pattern(std::string_view subject_class) {
  if (subject_class == "pci") return "*:*:*.*";
  std::string out(subject_class);
  std::replace(out.begin(), out.end(), '#', '*');
  return out;
}

StringPool::StringPool() { intern(""); }

std::uint32_t StringPool::intern(std::string_view text) {
  const auto found = ids_.find(text);
  if (found != ids_.end()) return found->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  const std::string& stored = storage_.emplace_back(text);
  strings_.push_back(&stored);
  ids_.emplace(std::string_view(stored), id);
  return id;
}

std::uint32_t StringPool::find(std::string_view text) const {
  const auto found = ids_.find(text);
  return found == ids_.end() ? kMissing : found->second;
}

std::uint32_t FleetStore::intern_params(
    std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  if (pairs.empty()) return 0;
  std::sort(pairs.begin(), pairs.end());
  // Later duplicates of a key win, as in a JSON object read into a map.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> unique;
  for (const auto& pair : pairs) {
    if (!unique.empty() && unique.back().first == pair.first) {
      unique.back() = pair;
    } else {
      unique.push_back(pair);
    }
  }
  std::string key(unique.size() * 8, '\0');
  std::memcpy(key.data(), unique.data(), key.size());
  const std::size_t before = param_keys_.size();
  const std::uint32_t id = param_keys_.intern(key);
  if (param_keys_.size() != before) param_sets_.push_back(std::move(unique));
  return id;
}

std::string FleetStore::conditions_text(std::uint32_t params) const {
  std::string text;
  std::vector<std::pair<std::string_view, std::string_view>> named;
  for (const auto& [key, value] : param_sets_[params]) {
    const std::string& name = strings.text(key);
    if (!is_condition_parameter(name)) continue;
    std::string_view v = strings.text(value);
    if (name == "memory") v = v.substr(0, v.find(':'));  // "cuda:0000:18:00.0" -> "cuda"
    named.emplace_back(name, v);
  }
  std::sort(named.begin(), named.end());
  for (const auto& [name, v] : named) {
    text += (text.empty() ? "" : "; ") + std::string(name) + "=" + std::string(v);
  }
  return text;
}

std::string_view FleetStore::param(const FigureRow& row, std::string_view key) const {
  const std::uint32_t key_id = strings.find(key);
  if (key_id == StringPool::kMissing) return {};
  for (const auto& [k, v] : param_sets_[row.params]) {
    if (k == key_id) return strings.text(v);
  }
  return {};
}

std::uint32_t FleetStore::add_run(RunInfo run) {
  runs.push_back(std::move(run));
  return static_cast<std::uint32_t>(runs.size() - 1);
}

void FleetStore::add(const Measurement& m, std::uint32_t run) {
  FigureRow row;
  row.run = run;
  row.probe = strings.intern(m.probe);
  row.metric = strings.intern(m.metric);
  row.unit = strings.intern(m.unit);
  row.host = strings.intern(m.host);
  row.subject = strings.intern(m.subject);
  row.peer = strings.intern(m.peer);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto& [key, value] : m.params) {
    pairs.emplace_back(strings.intern(key), strings.intern(value));
  }
  row.params = intern_params(pairs);
  row.message = strings.intern(m.message);
  row.time = strings.intern(m.time_utc);
  if (m.stats) {
    row.stats = static_cast<std::uint32_t>(stats.size());
    stats.push_back(*m.stats);
  }
  row.rank = m.rank;
  row.status = m.status;
  row.size = m.size_bytes.value_or(kNoSize);
  row.value = m.value;
  rows.push_back(row);
  if (run < runs.size()) ++runs[run].measurements;
}

Measurement FleetStore::materialize(const FigureRow& row) const {
  Measurement m;
  m.probe = strings.text(row.probe);
  m.metric = strings.text(row.metric);
  m.value = row.value;
  m.unit = strings.text(row.unit);
  m.host = strings.text(row.host);
  m.rank = row.rank;
  m.subject = strings.text(row.subject);
  m.peer = strings.text(row.peer);
  if (row.has_size()) m.size_bytes = row.size;
  for (const auto& [key, value] : param_sets_[row.params]) {
    m.params.emplace(strings.text(key), strings.text(value));
  }
  if (row.stats != kNoStats) m.stats = stats[row.stats];
  m.status = row.status;
  m.message = strings.text(row.message);
  m.time_utc = strings.text(row.time);
  return m;
}

void FleetStore::absorb(FleetStore&& other) {
  std::vector<std::uint32_t> ids(other.strings.size());
  for (std::uint32_t i = 0; i < ids.size(); ++i) ids[i] = strings.intern(other.strings.text(i));
  std::vector<std::uint32_t> sets(other.param_sets_.size());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t i = 0; i < sets.size(); ++i) {
    pairs.clear();
    for (const auto& [key, value] : other.param_sets_[i]) pairs.emplace_back(ids[key], ids[value]);
    sets[i] = intern_params(pairs);
  }
  const auto run_base = static_cast<std::uint32_t>(runs.size());
  const auto stats_base = static_cast<std::uint32_t>(stats.size());
  for (RunInfo& run : other.runs) runs.push_back(std::move(run));
  stats.insert(stats.end(), other.stats.begin(), other.stats.end());
  // Geometric growth: reserving exactly what this chunk needs would copy every row already held
  // on each call, quadratic over a fleet absorbed one run at a time.
  if (rows.capacity() < rows.size() + other.rows.size()) {
    rows.reserve(std::max(rows.size() + other.rows.size(), 2 * rows.capacity()));
  }
  for (FigureRow row : other.rows) {
    row.run += run_base;
    row.probe = ids[row.probe];
    row.metric = ids[row.metric];
    row.unit = ids[row.unit];
    row.host = ids[row.host];
    row.subject = ids[row.subject];
    row.peer = ids[row.peer];
    row.params = sets[row.params];
    row.message = ids[row.message];
    row.time = ids[row.time];
    if (row.stats != kNoStats) row.stats += stats_base;
    rows.push_back(row);
  }
  other.rows.clear();
  other.rows.shrink_to_fit();
}

}  // namespace fabcheck
