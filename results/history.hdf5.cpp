// The fleet history with HDF5: /strings, /runs and /figures as extendible datasets, appended to.
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "bench/sys/config_error.hpp"
#include "bench/sys/dir_handle.hpp"
#include "bench/sys/timer.hpp"
#include "results/hdf5_support.hpp"
#include "results/history.hpp"
#include "results/jsonl_reader.hpp"

namespace fabcheck {
namespace {

using hdf5::check;
using hdf5::CompoundBuilder;
using hdf5::Handle;

constexpr hsize_t kChunkRows = 1 << 16;
constexpr hsize_t kReadRows = 1 << 20;

struct RunRow {
  std::uint32_t dir;
  std::uint32_t started_utc;
  std::uint32_t verdict;
  std::uint32_t profile;
  std::uint32_t appended_utc;
  std::uint32_t hosts;
  std::uint64_t figures;
};

struct FigureRowH5 {
  std::uint32_t run;
  std::uint32_t host;
  std::uint32_t probe;
  std::uint32_t metric;
  std::uint32_t subject;
  std::uint32_t peer;
  std::uint32_t unit;
  std::uint32_t conditions;  // "backend=nccl; placement=out": what makes figures comparable
  std::uint8_t has_size;
  std::uint64_t size_bytes;
  double value;
};

// The two columns of /figures that say which hosts a run measured (read without the rest).
struct RunHostH5 {
  std::uint32_t run;
  std::uint32_t host;
};

std::unique_ptr<CompoundBuilder> run_host_type() {
  auto type = std::make_unique<CompoundBuilder>(sizeof(RunHostH5));
  type->uint32("run", offsetof(RunHostH5, run)).uint32("host", offsetof(RunHostH5, host));
  return type;
}

std::unique_ptr<CompoundBuilder> run_type() {
  auto type = std::make_unique<CompoundBuilder>(sizeof(RunRow));
  type->uint32("dir", offsetof(RunRow, dir))
      .uint32("started_utc", offsetof(RunRow, started_utc))
      .uint32("verdict", offsetof(RunRow, verdict))
      .uint32("profile", offsetof(RunRow, profile))
      .uint32("appended_utc", offsetof(RunRow, appended_utc))
      .uint32("hosts", offsetof(RunRow, hosts))
      .uint64("figures", offsetof(RunRow, figures));
  return type;
}

std::unique_ptr<CompoundBuilder> figure_type() {
  auto type = std::make_unique<CompoundBuilder>(sizeof(FigureRowH5));
  type->uint32("run", offsetof(FigureRowH5, run))
      .uint32("host", offsetof(FigureRowH5, host))
      .uint32("probe", offsetof(FigureRowH5, probe))
      .uint32("metric", offsetof(FigureRowH5, metric))
      .uint32("subject", offsetof(FigureRowH5, subject))
      .uint32("peer", offsetof(FigureRowH5, peer))
      .uint32("unit", offsetof(FigureRowH5, unit))
      .uint32("conditions", offsetof(FigureRowH5, conditions))
      .flag("has_size", offsetof(FigureRowH5, has_size))
      .uint64("size_bytes", offsetof(FigureRowH5, size_bytes))
      .real("value", offsetof(FigureRowH5, value));
  return type;
}

hid_t string_type() {
  const hid_t type = H5Tcopy(H5T_C_S1);
  check(H5Tset_size(type, H5T_VARIABLE), "H5Tset_size");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

void create_table(hid_t file, const char* name, hid_t type) {
  const hsize_t dims[1] = {0};
  const hsize_t max[1] = {H5S_UNLIMITED};
  Handle space(H5Screate_simple(1, dims, max), H5Sclose, "dataspace");
  Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
  const hsize_t chunk[1] = {kChunkRows};
  check(H5Pset_chunk(properties.get(), 1, chunk), "H5Pset_chunk");
  Handle dataset(
      H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT),
      H5Dclose, name);
}

hsize_t rows_of(hid_t dataset) {
  Handle space(H5Dget_space(dataset), H5Sclose, "dataspace");
  hsize_t dims[1] = {0};
  check(H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 ? -1 : 0, "extent");
  return dims[0];
}

template <typename Row>
void append_rows(hid_t file, const char* name, hid_t type, const Row* rows, hsize_t count) {
  if (count == 0) return;
  Handle dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, name);
  const hsize_t old = rows_of(dataset.get());
  const hsize_t size[1] = {old + count};
  check(H5Dset_extent(dataset.get(), size), std::string("extending ") + name);
  Handle space(H5Dget_space(dataset.get()), H5Sclose, "dataspace");
  const hsize_t start[1] = {old};
  const hsize_t n[1] = {count};
  check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, n, nullptr), "hyperslab");
  Handle memory(H5Screate_simple(1, n, nullptr), H5Sclose, "memory dataspace");
  check(H5Dwrite(dataset.get(), type, memory.get(), space.get(), H5P_DEFAULT, rows),
        std::string("writing ") + name);
}

template <typename Row>
std::vector<Row> read_rows(hid_t file, const char* name, hid_t type, hsize_t start, hsize_t count) {
  std::vector<Row> rows(count);
  if (count == 0) return rows;
  Handle dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, name);
  Handle space(H5Dget_space(dataset.get()), H5Sclose, "dataspace");
  const hsize_t first[1] = {start};
  const hsize_t n[1] = {count};
  check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, first, nullptr, n, nullptr), "hyperslab");
  Handle memory(H5Screate_simple(1, n, nullptr), H5Sclose, "memory dataspace");
  check(H5Dread(dataset.get(), type, memory.get(), space.get(), H5P_DEFAULT, rows.data()),
        std::string("reading ") + name);
  return rows;
}

std::vector<std::string> read_strings(hid_t file) {
  Handle dataset(H5Dopen2(file, "/strings", H5P_DEFAULT), H5Dclose, "/strings");
  const hsize_t count = rows_of(dataset.get());
  std::vector<char*> raw(count, nullptr);
  std::vector<std::string> strings;
  if (count == 0) return strings;
  Handle type(string_type(), H5Tclose, "string type");
  check(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()),
        "reading /strings");
  strings.reserve(count);
  for (char* text : raw) strings.emplace_back(text ? text : "");
  Handle space(H5Dget_space(dataset.get()), H5Sclose, "dataspace");
  H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, raw.data());
  return strings;
}

void write_attributes(hid_t file) {
  Handle scalar(H5Screate(H5S_SCALAR), H5Sclose, "scalar dataspace");
  Handle version(
      H5Acreate2(file, "schema_version", H5T_NATIVE_INT, scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose, "schema_version attribute");
  const int value = kSchemaVersion;
  check(H5Awrite(version.get(), H5T_NATIVE_INT, &value), "writing schema_version");
  Handle type(string_type(), H5Tclose, "string type");
  Handle kind(H5Acreate2(file, "kind", type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, "kind attribute");
  const char* text = kHistoryKind;
  check(H5Awrite(kind.get(), type.get(), &text), "writing kind");
}

// Throws ConfigError when the open file is not a fabcheck history.
void check_kind(hid_t file, const std::filesystem::path& path) {
  bool ok = H5Aexists(file, "kind") > 0;
  if (ok) {
    Handle attribute(H5Aopen(file, "kind", H5P_DEFAULT), H5Aclose, "kind attribute");
    Handle type(string_type(), H5Tclose, "string type");
    char* text = nullptr;
    ok = H5Aread(attribute.get(), type.get(), &text) >= 0 && text != nullptr &&
         std::string(text) == kHistoryKind;
    if (text != nullptr) H5free_memory(text);
  }
  for (const char* name : {"/strings", "/runs", "/figures"}) {
    ok = ok && H5Lexists(file, name, H5P_DEFAULT) > 0;
  }
  if (!ok) {
    throw ConfigError(path.string(), 0,
                      "not a fabcheck history (no kind = \"fabcheck-history\" with /strings, "
                      "/runs and /figures); refusing to write into it");
  }
}

// Strings of the file, with the ones this append adds.
class HistoryStrings {
 public:
  explicit HistoryStrings(std::vector<std::string> existing) : existing_(existing.size()) {
    for (std::uint32_t i = 0; i < existing.size(); ++i) ids_.emplace(existing[i], i);
  }
  std::uint32_t id(const std::string& text) {
    const auto found = ids_.find(text);
    if (found != ids_.end()) return found->second;
    const auto id = static_cast<std::uint32_t>(existing_ + added_.size());
    added_.push_back(text);
    ids_.emplace(text, id);
    return id;
  }
  const std::vector<std::string>& added() const { return added_; }

 private:
  std::size_t existing_;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> added_;
};

}  // namespace

bool history_available() { return true; }

namespace {

// Appends `store` to the HDF5 file at `hdf5_name` (a copy of the history, or a new file: `exists`
// says which); `path` names the history in messages.
void append_into(const std::string& hdf5_name, bool exists, const std::filesystem::path& path,
                 const FleetStore& store) {
  Handle file(exists ? H5Fopen(hdf5_name.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)
                     : H5Fcreate(hdf5_name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
              H5Fclose, path.string());
  auto runs_type = run_type();
  auto figures_type = figure_type();
  Handle strings_type(string_type(), H5Tclose, "string type");
  if (exists) {
    check_kind(file.get(), path);
  } else {
    write_attributes(file.get());
    create_table(file.get(), "/strings", strings_type.get());
    create_table(file.get(), "/runs", runs_type->get());
    create_table(file.get(), "/figures", figures_type->get());
    const char* blank = "";
    append_rows(file.get(), "/strings", strings_type.get(), &blank, 1);  // id 0 is ""
  }
  HistoryStrings strings(read_strings(file.get()));
  Handle runs_dataset(H5Dopen2(file.get(), "/runs", H5P_DEFAULT), H5Dclose, "/runs");
  const auto run_base = static_cast<std::uint32_t>(rows_of(runs_dataset.get()));

  std::vector<std::uint32_t> ids(store.strings.size(), 0xffffffffu);
  auto id_of = [&](std::uint32_t local) {
    if (ids[local] == 0xffffffffu) ids[local] = strings.id(store.strings.text(local));
    return ids[local];
  };
  std::vector<std::uint32_t> conditions(store.param_set_count(), 0xffffffffu);
  auto conditions_of = [&](std::uint32_t params) {
    if (conditions[params] == 0xffffffffu) {
      conditions[params] = strings.id(store.conditions_text(params));
    }
    return conditions[params];
  };
  std::vector<FigureRowH5> figures;
  std::vector<std::uint64_t> per_run(store.runs.size(), 0);
  for (const FigureRow& row : store.rows) {
    if (row.status != MeasurementStatus::ok || !std::isfinite(row.value)) continue;
    figures.push_back({run_base + row.run, id_of(row.host), id_of(row.probe), id_of(row.metric),
                       id_of(row.subject), id_of(row.peer), id_of(row.unit),
                       conditions_of(row.params), static_cast<std::uint8_t>(row.has_size()),
                       row.has_size() ? row.size : 0, row.value});
    ++per_run[row.run];
  }
  const std::string appended = utc_timestamp();
  std::vector<RunRow> runs;
  for (std::size_t i = 0; i < store.runs.size(); ++i) {
    const RunInfo& run = store.runs[i];
    runs.push_back({strings.id(run.dir), strings.id(run.started_utc), strings.id(run.verdict),
                    strings.id(run.profile_name), strings.id(appended),
                    static_cast<std::uint32_t>(run.hosts.size()), per_run[i]});
  }
  std::vector<const char*> added;
  for (const std::string& text : strings.added()) added.push_back(text.c_str());
  append_rows(file.get(), "/strings", strings_type.get(), added.data(), added.size());
  append_rows(file.get(), "/runs", runs_type->get(), runs.data(), runs.size());
  append_rows(file.get(), "/figures", figures_type->get(), figures.data(), figures.size());
  check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flushing " + path.string());
}

// Copies all of `from` to `to` (both open descriptors, `to` empty).
void copy_file(int from, int to, const std::filesystem::path& path) {
  for (;;) {
    const ssize_t n = ::copy_file_range(from, nullptr, to, nullptr, 1 << 30, 0);
    if (n > 0) continue;
    if (n == 0) return;
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) {
      throw std::system_error(errno, std::generic_category(), "copy " + path.string());
    }
    break;  // no copy_file_range here: read and write
  }
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(from, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "read " + path.string());
    if (n == 0) return;
    if (const int error = write_all(to, {buffer.data(), static_cast<std::size_t>(n)}); error != 0) {
      throw std::system_error(error, std::generic_category(), "copy " + path.string());
    }
  }
}

}  // namespace

void append_history(const std::filesystem::path& path, const FleetStore& store) {
  // Never changed in place: a SIGKILL during an HDF5 write leaves a file HDF5 cannot read, and
  // every earlier night lost with it. The history is copied to a temporary file in its folder
  // (created exclusively, held open), appended to there, fsynced, and renamed over the history
  // (a new history is linked to its name, never written over one that appeared meanwhile): a kill
  // at any write leaves the old file whole, and at worst a hidden temporary file beside it.
  std::error_code error;
  const bool exists =
      std::filesystem::exists(path, error) || std::filesystem::is_symlink(path, error);
  if (exists) check_regular_file(path);
  const std::string name = path.filename().string();
  const DirHandle folder = DirHandle::open_output_folder(path.parent_path(), "--history");
  const std::string temporary = "." + name + ".tmp-" + std::to_string(::getpid()) + "-" +
                                std::to_string(static_cast<long long>(now_seconds() * 1e6));
  UniqueFd copy;
  try {
    copy = folder.create_file(temporary, 0600, O_RDWR);
  } catch (const std::system_error& failure) {
    throw std::runtime_error(failure.what());
  }
  try {
    if (exists) {
      const UniqueFd original = folder.open_file(name, O_RDONLY | O_NONBLOCK);
      struct stat info {};
      if (::fstat(original.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
        throw ConfigError(path.string(), 0, "is not a regular file; refusing to write into it");
      }
      copy_file(original.get(), copy.get(), path);
      if (::fchmod(copy.get(), info.st_mode & 0777) != 0) {
        throw std::system_error(errno, std::generic_category(), "chmod " + temporary);
      }
    } else if (::fchmod(copy.get(), 0644) != 0) {
      throw std::system_error(errno, std::generic_category(), "chmod " + temporary);
    }
    // HDF5 opens files by name only: the name of the descriptor held, which leads to the copy
    // made above whatever is renamed in the folder meanwhile.
    append_into("/proc/self/fd/" + std::to_string(copy.get()), exists, path, store);
    if (::fsync(copy.get()) != 0) {
      throw std::system_error(errno, std::generic_category(), "fsync " + temporary);
    }
    copy.reset();
    if (exists) {
      folder.rename(temporary, name);
    } else if (::linkat(folder.fd(), temporary.c_str(), folder.fd(), name.c_str(), 0) != 0) {
      throw std::system_error(errno, std::generic_category(), "create " + path.string());
    } else {
      folder.remove_file(temporary);
    }
    folder.sync();
  } catch (...) {
    folder.remove_file(temporary);
    throw;
  }
}

FleetStore read_history(const std::filesystem::path& path, const std::set<std::string>* hosts,
                        std::size_t last_runs) {
  check_regular_file(path);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path.string());
  check_kind(file.get(), path);
  const std::vector<std::string> strings = read_strings(file.get());
  auto text = [&](std::uint32_t id) -> const std::string& {
    static const std::string empty;
    return id < strings.size() ? strings[id] : empty;
  };
  auto runs_type = run_type();
  auto figures_type = figure_type();
  Handle runs_dataset(H5Dopen2(file.get(), "/runs", H5P_DEFAULT), H5Dclose, "/runs");
  const hsize_t run_count = rows_of(runs_dataset.get());
  const std::vector<RunRow> runs =
      read_rows<RunRow>(file.get(), "/runs", runs_type->get(), 0, run_count);
  std::vector<bool> wanted_host(strings.size(), hosts == nullptr);
  if (hosts != nullptr) {
    for (std::uint32_t i = 0; i < strings.size(); ++i)
      wanted_host[i] = hosts->count(strings[i]) > 0;
  }
  Handle figures_dataset(H5Dopen2(file.get(), "/figures", H5P_DEFAULT), H5Dclose, "/figures");
  const hsize_t total = rows_of(figures_dataset.get());

  // The last `last_runs` runs of each host (the runs with a figure of it), not of the file: with
  // one run directory per node a night, the file's last runs are other nodes of the last night.
  const bool per_host = last_runs != 0 && last_runs < runs.size();
  std::vector<bool> kept_run(runs.size(), !per_host);
  std::map<std::uint32_t, std::set<std::uint32_t>> kept_of_host;  // host -> its last runs
  if (per_host) {
    auto pairs_type = run_host_type();
    std::vector<std::uint32_t> last_seen(strings.size(), 0xffffffffu);
    for (hsize_t start = 0; start < total; start += kReadRows) {
      const hsize_t count = std::min(kReadRows, total - start);
      for (const RunHostH5& h :
           read_rows<RunHostH5>(file.get(), "/figures", pairs_type->get(), start, count)) {
        if (h.run >= runs.size() || h.host >= strings.size() || !wanted_host[h.host]) continue;
        if (last_seen[h.host] == h.run) continue;  // a run's figures lie together: skip repeats
        last_seen[h.host] = h.run;
        std::set<std::uint32_t>& kept = kept_of_host[h.host];
        kept.insert(h.run);
        if (kept.size() > last_runs) kept.erase(kept.begin());
      }
    }
    for (const auto& [host, kept] : kept_of_host) {
      for (const std::uint32_t run : kept) kept_run[run] = true;
    }
  }
  // Whether a row of (host, run) is kept; rows come grouped, so the last answer is cached.
  std::uint64_t last_key = ~0ull;
  bool last_kept = false;
  auto kept_row = [&](std::uint32_t host, std::uint32_t run) {
    if (!per_host) return true;
    const std::uint64_t key = (static_cast<std::uint64_t>(host) << 32) | run;
    if (key != last_key) {
      last_key = key;
      const auto found = kept_of_host.find(host);
      last_kept = found != kept_of_host.end() && found->second.count(run) > 0;
    }
    return last_kept;
  };

  FleetStore store;
  std::vector<std::uint32_t> run_index(runs.size(), 0xffffffffu);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!kept_run[i]) continue;
    RunInfo info;
    info.dir = text(runs[i].dir);
    info.started_utc = text(runs[i].started_utc);
    info.verdict = text(runs[i].verdict);
    info.profile_name = text(runs[i].profile);
    info.summary_found = true;
    run_index[i] = store.add_run(std::move(info));
  }
  std::vector<std::uint32_t> local(strings.size(), 0xffffffffu);
  auto local_id = [&](std::uint32_t id) {
    if (id >= strings.size()) return 0u;
    if (local[id] == 0xffffffffu) local[id] = store.strings.intern(strings[id]);
    return local[id];
  };
  // Conditions text back into a parameter set, once per distinct text.
  std::unordered_map<std::uint32_t, std::uint32_t> params_of_conditions;
  auto params_id = [&](std::uint32_t conditions) {
    const auto found = params_of_conditions.find(conditions);
    if (found != params_of_conditions.end()) return found->second;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    const std::string& text_of = text(conditions);
    std::size_t start = 0;
    while (start < text_of.size()) {
      std::size_t end = text_of.find("; ", start);
      if (end == std::string::npos) end = text_of.size();
      const std::string item = text_of.substr(start, end - start);
      const std::size_t equals = item.find('=');
      if (equals != std::string::npos) {
        pairs.emplace_back(store.strings.intern(item.substr(0, equals)),
                           store.strings.intern(item.substr(equals + 1)));
      }
      start = end + 2;
    }
    return params_of_conditions[conditions] = store.intern_params(pairs);
  };
  for (hsize_t start = 0; start < total; start += kReadRows) {
    const hsize_t count = std::min(kReadRows, total - start);
    for (const FigureRowH5& h :
         read_rows<FigureRowH5>(file.get(), "/figures", figures_type->get(), start, count)) {
      if (h.run >= runs.size() || run_index[h.run] == 0xffffffffu) continue;
      if (h.host >= strings.size() || !wanted_host[h.host]) continue;
      if (!kept_row(h.host, h.run)) continue;  // older than this host's last runs
      FigureRow row;
      row.run = run_index[h.run];
      row.host = local_id(h.host);
      row.probe = local_id(h.probe);
      row.metric = local_id(h.metric);
      row.subject = local_id(h.subject);
      row.peer = local_id(h.peer);
      row.unit = local_id(h.unit);
      row.params = params_id(h.conditions);
      row.size = h.has_size ? h.size_bytes : kNoSize;
      row.value = h.value;
      store.rows.push_back(row);
      ++store.runs[row.run].measurements;
    }
  }
  return store;
}

}  // namespace fabcheck
