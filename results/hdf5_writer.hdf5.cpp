// run.h5 with HDF5: /measurements and /findings as compound tables, node x node matrices under
// /pair_matrices, schema_version on the root.
#include <hdf5.h>

#include <cmath>
#include <cstddef>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "bench/sys/dir_handle.hpp"
#include "results/hdf5_support.hpp"
#include "results/hdf5_writer.hpp"
#include "results/host_pair_matrix.hpp"
#include "results/json_text.hpp"

namespace fabcheck {
namespace {

using hdf5::check;
using hdf5::CompoundBuilder;
using hdf5::Handle;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct MeasurementRow {
  const char* probe;
  const char* metric;
  double value;
  const char* unit;
  const char* host;
  std::int64_t rank;
  const char* subject;
  const char* peer;
  std::uint8_t has_size;
  std::uint64_t size_bytes;
  const char* params;   // JSON object text
  const char* by_rank;  // JSON array text: [{"rank", "host", "value"}]
  const char* status;
  const char* message;
  const char* time_utc;
  std::uint8_t has_stats;
  std::uint64_t stats_count;
  double stats_min;
  double stats_median;
  double stats_max;
  double stats_p99;
  double stats_mean;
  double stats_cv;
};

struct FindingRow {
  const char* severity;
  const char* probe;
  const char* metric;
  const char* subject;
  const char* host;
  std::int64_t rank;
  std::uint8_t has_size;
  std::uint64_t size_bytes;
  double observed;  // NaN when absent
  double expected;
  double warn_at;
  const char* unit;
  const char* message;
  const char* evidence;
  const char* remedy;
  const char* source;
};

template <typename Row>
void write_table(hid_t file, const char* name, hid_t type, const std::vector<Row>& rows) {
  const hsize_t dims[1] = {rows.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle dataset(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose, name);
  if (!rows.empty()) {
    check(H5Dwrite(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
          std::string("writing ") + name);
  }
}

void write_measurements(hid_t file, const std::vector<Measurement>& measurements) {
  CompoundBuilder type(sizeof(MeasurementRow));
  type.text("probe", offsetof(MeasurementRow, probe))
      .text("metric", offsetof(MeasurementRow, metric))
      .real("value", offsetof(MeasurementRow, value))
      .text("unit", offsetof(MeasurementRow, unit))
      .text("host", offsetof(MeasurementRow, host))
      .int64("rank", offsetof(MeasurementRow, rank))
      .text("subject", offsetof(MeasurementRow, subject))
      .text("peer", offsetof(MeasurementRow, peer))
      .flag("has_size", offsetof(MeasurementRow, has_size))
      .uint64("size_bytes", offsetof(MeasurementRow, size_bytes))
      .text("params", offsetof(MeasurementRow, params))
      .text("by_rank", offsetof(MeasurementRow, by_rank))
      .text("status", offsetof(MeasurementRow, status))
      .text("message", offsetof(MeasurementRow, message))
      .text("time_utc", offsetof(MeasurementRow, time_utc))
      .flag("has_stats", offsetof(MeasurementRow, has_stats))
      .uint64("stats_count", offsetof(MeasurementRow, stats_count))
      .real("stats_min", offsetof(MeasurementRow, stats_min))
      .real("stats_median", offsetof(MeasurementRow, stats_median))
      .real("stats_max", offsetof(MeasurementRow, stats_max))
      .real("stats_p99", offsetof(MeasurementRow, stats_p99))
      .real("stats_mean", offsetof(MeasurementRow, stats_mean))
      .real("stats_cv", offsetof(MeasurementRow, stats_cv));

  std::vector<std::string> params_text;  // owns the params strings the rows point to
  params_text.reserve(measurements.size());
  std::vector<std::string> by_rank_text;
  by_rank_text.reserve(measurements.size());
  std::vector<MeasurementRow> rows;
  rows.reserve(measurements.size());
  for (const Measurement& m : measurements) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [key, value] : m.params) params[key] = value;
    params_text.push_back(json_text(params));
    nlohmann::json by_rank = nlohmann::json::array();
    for (const auto& figure : m.by_rank) {
      by_rank.push_back({{"rank", figure.rank}, {"host", figure.host}, {"value", figure.value}});
    }
    by_rank_text.push_back(json_text(by_rank));
    const SampleStats stats = m.stats.value_or(SampleStats{});
    rows.push_back(MeasurementRow{m.probe.c_str(),
                                  m.metric.c_str(),
                                  m.value,
                                  m.unit.c_str(),
                                  m.host.c_str(),
                                  m.rank,
                                  m.subject.c_str(),
                                  m.peer.c_str(),
                                  static_cast<std::uint8_t>(m.size_bytes.has_value()),
                                  m.size_bytes.value_or(0),
                                  params_text.back().c_str(),
                                  by_rank_text.back().c_str(),
                                  to_string(m.status),
                                  m.message.c_str(),
                                  m.time_utc.c_str(),
                                  static_cast<std::uint8_t>(m.stats.has_value()),
                                  static_cast<std::uint64_t>(stats.count),
                                  m.stats ? stats.min : kNaN,
                                  m.stats ? stats.median : kNaN,
                                  m.stats ? stats.max : kNaN,
                                  m.stats ? stats.p99 : kNaN,
                                  m.stats ? stats.mean : kNaN,
                                  m.stats ? stats.cv : kNaN});
  }
  write_table(file, "/measurements", type.get(), rows);
}

void write_findings(hid_t file, const std::vector<Finding>& findings) {
  CompoundBuilder type(sizeof(FindingRow));
  type.text("severity", offsetof(FindingRow, severity))
      .text("probe", offsetof(FindingRow, probe))
      .text("metric", offsetof(FindingRow, metric))
      .text("subject", offsetof(FindingRow, subject))
      .text("host", offsetof(FindingRow, host))
      .int64("rank", offsetof(FindingRow, rank))
      .flag("has_size", offsetof(FindingRow, has_size))
      .uint64("size_bytes", offsetof(FindingRow, size_bytes))
      .real("observed", offsetof(FindingRow, observed))
      .real("expected", offsetof(FindingRow, expected))
      .real("warn_at", offsetof(FindingRow, warn_at))
      .text("unit", offsetof(FindingRow, unit))
      .text("message", offsetof(FindingRow, message))
      .text("evidence", offsetof(FindingRow, evidence))
      .text("remedy", offsetof(FindingRow, remedy))
      .text("source", offsetof(FindingRow, source));

  std::vector<FindingRow> rows;
  rows.reserve(findings.size());
  for (const Finding& f : findings) {
    rows.push_back(FindingRow{
        to_string(f.severity), f.probe.c_str(), f.metric.c_str(), f.subject.c_str(), f.host.c_str(),
        f.rank, static_cast<std::uint8_t>(f.size_bytes.has_value()), f.size_bytes.value_or(0),
        f.observed.value_or(kNaN), f.expected.value_or(kNaN), f.warn_at.value_or(kNaN),
        f.unit.c_str(), f.message.c_str(), f.evidence.c_str(), f.remedy.c_str(), f.source.c_str()});
  }
  write_table(file, "/findings", type.get(), rows);
}

void write_text_attribute(hid_t object, const char* name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar dataspace");
  Handle attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose, name);
  const char* text = value.c_str();
  check(H5Awrite(attribute.get(), type.get(), &text), std::string("writing attribute ") + name);
}

// /pair_matrices/<probe:metric:size:pass>: hosts x hosts doubles (NaN: not measured), with the
// hosts (attribute "hosts", in row order), unit, size and pass as attributes.
void write_pair_matrices(hid_t file, const std::vector<Measurement>& measurements) {
  const auto matrices = host_pair_matrices(measurements);
  if (matrices.empty()) return;
  Handle group(H5Gcreate2(file, "/pair_matrices", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
               "/pair_matrices");
  for (const auto& matrix : matrices) {
    const hsize_t n = matrix.hosts.size();
    const hsize_t dims[2] = {n, n};
    Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "matrix dataspace");
    const std::string name = matrix.name();
    Handle dataset(H5Dcreate2(group.get(), name.c_str(), H5T_NATIVE_DOUBLE, space.get(),
                              H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose, name.c_str());
    check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                   matrix.values.data()),
          "writing " + name);
    Handle text_type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(text_type.get(), H5T_VARIABLE), "H5Tset_size");
    check(H5Tset_cset(text_type.get(), H5T_CSET_UTF8), "H5Tset_cset");
    const hsize_t host_dims[1] = {n};
    Handle host_space(H5Screate_simple(1, host_dims, nullptr), H5Sclose, "hosts dataspace");
    Handle hosts(H5Acreate2(dataset.get(), "hosts", text_type.get(), host_space.get(), H5P_DEFAULT,
                            H5P_DEFAULT),
                 H5Aclose, "hosts attribute");
    std::vector<const char*> names;
    for (const auto& host : matrix.hosts) names.push_back(host.c_str());
    check(H5Awrite(hosts.get(), text_type.get(), names.data()), "writing hosts of " + name);
    write_text_attribute(dataset.get(), "probe", matrix.probe);
    write_text_attribute(dataset.get(), "metric", matrix.metric);
    write_text_attribute(dataset.get(), "unit", matrix.unit);
    write_text_attribute(dataset.get(), "pass", matrix.pass);
    write_text_attribute(dataset.get(), "size_bytes", std::to_string(matrix.size_bytes));
  }
}

void write_schema_version(hid_t file) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar dataspace");
  Handle attribute(
      H5Acreate2(file, "schema_version", H5T_NATIVE_INT, space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose, "schema_version attribute");
  const int version = kSchemaVersion;
  check(H5Awrite(attribute.get(), H5T_NATIVE_INT, &version), "writing schema_version");
}

}  // namespace

bool hdf5_available() { return true; }

std::string hdf5_image(const std::vector<Measurement>& measurements,
                       const std::vector<Finding>& findings) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // failures are reported by exceptions, not printed
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access list");
  // The core driver: the file lives in memory (grown 64 KiB at a time) and is never written out.
  check(H5Pset_fapl_core(access.get(), 64 * 1024, 0), "H5Pset_fapl_core");
  Handle handle(H5Fcreate("run.h5", H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose,
                "in-memory file");
  write_schema_version(handle.get());
  write_measurements(handle.get(), measurements);
  write_findings(handle.get(), findings);
  write_pair_matrices(handle.get(), measurements);
  check(H5Fflush(handle.get(), H5F_SCOPE_GLOBAL), "flushing run.h5");
  const ssize_t size = H5Fget_file_image(handle.get(), nullptr, 0);
  if (size <= 0) throw std::runtime_error("HDF5: cannot size the file image");
  std::string image(static_cast<std::size_t>(size), '\0');
  if (H5Fget_file_image(handle.get(), image.data(), image.size()) != size)
    throw std::runtime_error("HDF5: cannot copy the file image");
  return image;
}

bool write_hdf5(const std::filesystem::path& file, const std::vector<Measurement>& measurements,
                const std::vector<Finding>& findings) {
  const std::string image = hdf5_image(measurements, findings);
  try {
    // A new file of its own in the folder held, renamed over the name: never written through one.
    DirHandle::open(file.parent_path(), true).publish_file(file.filename().string(), image, 0644);
  } catch (const std::system_error& error) {
    throw std::runtime_error(std::string("cannot write ") + error.what());
  }
  return true;
}

}  // namespace fabcheck
